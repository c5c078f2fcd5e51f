/**
 * Paired tests of whether two models of one experiment differ. Every model of an experiment runs
 * the same scenes with the same seeds, so its runs pair up by scene and the tests compare within
 * pairs: success by McNemar's exact test on the discordant pairs, task time by the Wilcoxon
 * signed-rank test with a failed run's time set to the task's time limit. Both are exact (the
 * signed-rank test conditional on the ranks seen, ties included) and assume nothing about the
 * times' distribution, which is skewed and for 30 scenes cannot be checked.
 *
 * Why the signed-rank test on censored times: a run that failed has no completion time, and
 * leaving it out (comparing successful runs only) compares two different sets of scenes and drops
 * exactly the runs that differ most. Set at the time limit, a failure counts as slower than every
 * completed run; the test reads only the ranks of the paired differences, so where a failure sits
 * among them depends on the limit only through that ordering, not through a mean that the chosen
 * limit would move. A paired permutation test of the mean would weigh a failure by the limit's
 * value.
 */

/** ln C(n, k) by a sum of logs: exact enough for the counts of an experiment. */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * Two-sided p of McNemar's exact test: of the scenes where exactly one model succeeded, `onlyA`
 * went to model a and `onlyB` to model b; under no difference each discordant scene is a fair coin
 * (binomial, n = onlyA + onlyB, 1/2), and p is twice the smaller tail, at most 1. No discordant
 * scene gives p = 1.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  for (const k of [onlyA, onlyB])
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`mcnemarExact: ${k} is not a count`);
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const low = Math.min(onlyA, onlyB);
  let tail = 0;
  for (let i = 0; i <= low; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/** Ranks 1..n of xs, ties sharing their mean rank. */
function midranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const ranks = new Array<number>(xs.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.x === order[start]!.x) end++;
    const rank = (start + end) / 2 + 1;
    for (let j = start; j <= end; j++) ranks[order[j]!.i] = rank;
    start = end + 1;
  }
  return ranks;
}

export interface SignedRankResult {
  /** Sum of the ranks of the positive differences (a - b > 0), the statistic W+. */
  statistic: number;
  /** Non-zero differences the test ranked (zeros, ties within a pair, are left out). */
  n: number;
  /** Two-sided p: the share of sign assignments whose W+ is at least as far from its mean. */
  p: number;
}

/**
 * The Wilcoxon signed-rank test of paired differences d = a - b, exact: zeros dropped (Wilcoxon's
 * convention), |d| ranked with ties at their mean rank, and W+ compared with its distribution over
 * all 2^n sign assignments of those ranks, counted by dynamic programming over doubled (whole)
 * ranks. p = 1 when no difference is non-zero.
 */
export function wilcoxonSignedRank(differences: readonly number[]): SignedRankResult {
  const d = differences.filter((x) => {
    if (!Number.isFinite(x)) throw new RangeError(`wilcoxonSignedRank: ${x} is not a finite difference`);
    return x !== 0;
  });
  const n = d.length;
  if (n === 0) return { statistic: 0, n: 0, p: 1 };
  const ranks = midranks(d.map(Math.abs));
  const doubled = ranks.map((r) => Math.round(2 * r));
  const statistic = ranks.reduce((s, r, i) => (d[i]! > 0 ? s + r : s), 0);
  const total = doubled.reduce((a, b) => a + b, 0);
  // prob[s]: probability that the doubled positive ranks sum to s, each sign a fair coin.
  let prob = new Float64Array(total + 1);
  prob[0] = 1;
  let reach = 0;
  for (const r of doubled) {
    const next = new Float64Array(total + 1);
    for (let s = 0; s <= reach; s++) {
      const q = prob[s]! / 2;
      if (q === 0) continue;
      next[s] = next[s]! + q;
      next[s + r] = next[s + r]! + q;
    }
    reach += r;
    prob = next;
  }
  const seen = Math.abs(2 * statistic - total / 2);
  let p = 0;
  for (let s = 0; s <= total; s++) if (Math.abs(s - total / 2) >= seen - 1e-9) p += prob[s]!;
  return { statistic, n, p: Math.min(1, p) };
}
