/** Turns any error that reaches the top of a command into one clear message and an exit code. */
import { SceneFileError } from '../contract/scene-file';

/** An error meant for the user as it is: no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function reportCliError(err: unknown): number {
  if (err instanceof SceneFileError || err instanceof UsageError) {
    process.stderr.write(`parapush: ${err.message}\n`);
    return 2;
  }
  process.stderr.write(`parapush: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
