/**
 * Work split by index over n shards (experiments' scenes, the learned model's data blocks): shard
 * i of n owns the indices i, i + n, i + 2n, ..., so shards run anywhere, in any order, and their
 * results join by copying.
 */
export interface Shard {
  index: number;
  count: number;
}

/** Whether item `index` belongs to the shard. */
export function inShard(index: number, shard: Shard): boolean {
  return index % shard.count === shard.index;
}
