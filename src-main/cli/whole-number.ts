/** A whole-number option (counts, seeds, indices) read from the command line. */
import { UsageError } from './errors';

export function wholeNumber(name: string, arg: string, min: number): number {
  const v = Number(arg);
  if (!Number.isInteger(v) || v < min)
    throw new UsageError(`${name}: expected a whole number >= ${min}, got "${arg}"`);
  return v;
}
