/**
 * The q-quantile of ascending values by nearest rank: the smallest value with at least a share q
 * of the values at or below it, so the p99 of 100 samples is the 99th, not the largest. NaN for no
 * values. One definition for every p50/p99 the project prints, bench or log.
 */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
