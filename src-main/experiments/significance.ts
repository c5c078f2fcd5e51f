/**
 * Tests of whether two models of one experiment differ: success counts by Fisher's exact test,
 * task times by a permutation test of the difference in means. Both are exact (or, for large
 * samples, seeded Monte Carlo) and assume nothing about the times' distribution, which for task
 * times is skewed and for ten runs cannot be checked.
 */
import { Rng } from '../common/rng';

/** ln(n!) for the small counts of an experiment (a sum of logs is exact enough and cheap here). */
function logFactorial(n: number): number {
  let s = 0;
  for (let i = 2; i <= n; i++) s += Math.log(i);
  return s;
}

/**
 * Two-sided p-value of Fisher's exact test on the 2x2 table (successes, failures) x (model a,
 * model b): the probability, with both margins fixed, of a table no more likely than the one seen.
 */
export function fisherExact(successesA: number, runsA: number, successesB: number, runsB: number): number {
  for (const [k, n] of [
    [successesA, runsA],
    [successesB, runsB],
  ] as const)
    if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 1 || k > n)
      throw new RangeError(`fisherExact: ${k} successes of ${n} runs is not a count`);
  const successes = successesA + successesB;
  const total = runsA + runsB;
  // Hypergeometric probability that model a has x of all the successes.
  const fixed =
    logFactorial(successes) +
    logFactorial(total - successes) +
    logFactorial(runsA) +
    logFactorial(runsB) -
    logFactorial(total);
  const logP = (x: number): number =>
    fixed -
    logFactorial(x) -
    logFactorial(successes - x) -
    logFactorial(runsA - x) -
    logFactorial(runsB - successes + x);
  const seen = logP(successesA);
  let p = 0;
  for (let x = Math.max(0, successes - runsB); x <= Math.min(successes, runsA); x++) {
    const lp = logP(x);
    // A relative tolerance keeps tables exactly as likely as the one seen from being lost to rounding.
    if (lp <= seen + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Number of ways to choose k of n, or Infinity once past `cap` (all that matters here). */
function choose(n: number, k: number, cap: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) {
    c = (c * (n - k + i)) / i;
    if (c > cap) return Infinity;
  }
  return Math.round(c);
}

export interface PermutationOptions {
  /** Relabelings drawn when there are more than this many in all (else every one is enumerated). */
  rounds?: number;
  /** Seed of the relabelings drawn, so a page regenerates identically. */
  seed?: number;
}

/**
 * Two-sided p-value of a permutation test of the difference in mean between xs and ys: the share
 * of relabelings of the pooled samples whose |difference| is at least the one seen. Every
 * relabeling is enumerated when there are at most `rounds`; otherwise `rounds` are drawn and the
 * p-value is (1 + hits) / (1 + rounds), which never reports an impossible 0. NaN when a side is
 * empty.
 */
export function permutationTest(
  xs: readonly number[],
  ys: readonly number[],
  { rounds = 20000, seed = 1 }: PermutationOptions = {},
): number {
  if (xs.length === 0 || ys.length === 0) return Number.NaN;
  const pooled = [...xs, ...ys];
  const n = pooled.length;
  const k = xs.length;
  const total = pooled.reduce((a, b) => a + b, 0);
  // A tolerance so that relabelings tying the observed difference count as at least as extreme.
  const seen = Math.abs(mean(xs) - mean(ys)) - 1e-9 * (1 + Math.abs(total));
  const extreme = (sumA: number): boolean => Math.abs(sumA / k - (total - sumA) / (n - k)) >= seen;

  if (choose(n, k, rounds) <= rounds) {
    let hits = 0;
    let all = 0;
    const walk = (start: number, left: number, sum: number): void => {
      if (left === 0) {
        all++;
        if (extreme(sum)) hits++;
        return;
      }
      for (let i = start; i <= n - left; i++) walk(i + 1, left - 1, sum + pooled[i]!);
    };
    walk(0, k, 0);
    return hits / all;
  }

  const rng = new Rng(seed);
  const order = pooled.map((_, i) => i);
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    // Partial Fisher-Yates: the first k places of a uniform shuffle are a uniform k-subset.
    let sum = 0;
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(rng.uniform() * (n - i));
      [order[i], order[j]] = [order[j]!, order[i]!];
      sum += pooled[order[i]!]!;
    }
    if (extreme(sum)) hits++;
  }
  return (1 + hits) / (1 + rounds);
}
