/** The `--shard i/n` option of `experiment` and `learn generate` (common/shard.ts says what a shard owns). */
import type { Shard } from '../common/shard';
import { UsageError } from './errors';

export function parseShard(arg: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(arg);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count)
    throw new UsageError(`--shard: expected i/n with 0 <= i < n, got "${arg}"`);
  return { index, count };
}
