/** Interval estimates for experiment reports. */

/** Wilson score interval for a binomial proportion (95% with z = 1.96); [0, 0] for n = 0. */
export function wilsonInterval(successes: number, n: number, z = 1.96): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 0 };
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Mean and the half-width of its 95% confidence interval (Student t), of n samples; ci95 = 0
 * below 2 samples, where there is no interval (meanCiText then prints the mean alone).
 */
export function meanCi95(xs: readonly number[]): { mean: number; ci95: number; n: number } {
  const n = xs.length;
  if (n === 0) return { mean: Number.NaN, ci95: 0, n };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, ci95: 0, n };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, ci95: tQuantile975(n - 1) * Math.sqrt(variance / n), n };
}

/**
 * "24.8 ± 1.2" with d decimals; a single sample has no interval, and "24.8 ± 0.0" would claim a
 * certain one, so it reads "24.8 (n = 1)"; no samples read "n/a".
 */
export function meanCiText(m: { mean: number; ci95: number; n?: number }, d = 1, plusMinus = '±'): string {
  if (!Number.isFinite(m.mean)) return 'n/a';
  if (m.n === 1) return `${m.mean.toFixed(d)} (n = 1)`;
  return `${m.mean.toFixed(d)} ${plusMinus} ${m.ci95.toFixed(d)}`;
}

/** Two-sided 95% Student-t quantile: table up to 30 degrees of freedom, then a close approximation. */
export function tQuantile975(dof: number): number {
  const table = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
    2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
  ];
  return dof <= table.length ? table[dof - 1]! : 1.96 + 2.4 / dof;
}
