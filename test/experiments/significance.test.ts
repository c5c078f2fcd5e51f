/**
 * The paired tests against reference values. McNemar's exact test is the two-sided binomial test
 * on the discordant pairs; the constants are scipy 1.17.1's `scipy.stats.binomtest(min(b, c),
 * b + c, 0.5).pvalue`. The signed-rank constants without ties are scipy 1.17.1's
 * `scipy.stats.wilcoxon(d, method='exact')`; the one with ties and a zero is a brute-force count
 * over all 2^10 sign assignments of the midranks (scipy's exact method does not take ties).
 */
import { describe, expect, it } from 'vitest';
import { mcnemarExact, wilcoxonSignedRank } from '../../src-main/experiments/significance';

describe("McNemar's exact test", () => {
  it('gives the binomial test on the discordant pairs (scipy binomtest)', () => {
    expect(mcnemarExact(1, 6)).toBeCloseTo(0.125, 12);
    expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 12);
    expect(mcnemarExact(2, 9)).toBeCloseTo(0.0654296875, 12);
    expect(mcnemarExact(10, 2)).toBeCloseTo(0.03857421875, 12);
    // Agresti's approval ratings (150 vs 86 discordant of 1600 people).
    expect(mcnemarExact(150, 86)).toBeCloseTo(3.7159361395713866e-5, 15);
  });

  it('is symmetric, and 1 with balanced or no discordant pairs', () => {
    expect(mcnemarExact(6, 1)).toBe(mcnemarExact(1, 6));
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 1)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });

  it('refuses what is not a count', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});

describe('the Wilcoxon signed-rank test, exact', () => {
  it("gives scipy's exact p and W+ without ties", () => {
    const ten = wilcoxonSignedRank([1.5, -0.3, 2.2, 4.1, -1.7, 3.3, 0.9, 2.8, -0.6, 5.0]);
    // scipy reports min(W+, W-) = 8; W+ = 55 - 8.
    expect(ten.statistic).toBe(47);
    expect(ten.p).toBeCloseTo(0.048828125, 12);
    expect(wilcoxonSignedRank([0.4, -1.1, 2.5, 3.6, 1.2, -0.2, 4.7, 0.8, 2.9, 1.9, -3.1, 5.5]).p).toBeCloseTo(
      0.05224609375,
      12,
    );
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5, 6, 7, -8]).p).toBeCloseTo(0.1953125, 12);
  });

  it('drops zeros and ranks ties at their mean rank (brute-force count: 82 of 1024)', () => {
    const r = wilcoxonSignedRank([2, -2, 3, 3, 5, -1, 4, -4, 6, 7, 0]);
    expect(r.n).toBe(10);
    expect(r.statistic).toBe(45);
    expect(r.p).toBeCloseTo(82 / 1024, 12);
  });

  it('gives p = 1 when every pair ties, and a sign flip of every pair keeps p', () => {
    expect(wilcoxonSignedRank([0, 0, 0]).p).toBe(1);
    const d = [3, -1, 4, 1.5, 9, 2.6, -5];
    expect(wilcoxonSignedRank(d.map((x) => -x)).p).toBeCloseTo(wilcoxonSignedRank(d).p, 12);
  });

  it('finds a consistent shift over 100 pairs, with failures at the limit ranking as the largest differences', () => {
    // 100 scenes: a is 8 s slower on each, and fails (at a 3600 s limit) on one where b succeeds.
    const d = Array.from({ length: 100 }, (_, i) => (i === 0 ? 3600 - 17 : 8 + (i % 7) * 0.1));
    const r = wilcoxonSignedRank(d);
    expect(r.statistic).toBe(5050);
    expect(r.p).toBeCloseTo(2 / 2 ** 100, 40);
  });
});
