import { describe, expect, it } from 'vitest';
import { fisherExact, permutationTest } from '../../src-main/experiments/significance';

describe("Fisher's exact test", () => {
  it("gives the textbook p-values (Fisher's tea tasting; two-sided)", () => {
    // 3 of 4 vs 1 of 4: tables as or less likely are x = 0, 1, 3, 4 of the four successes.
    expect(fisherExact(3, 4, 1, 4)).toBeCloseTo(34 / 70, 12);
    expect(fisherExact(4, 4, 0, 4)).toBeCloseTo(2 / 70, 12);
  });

  it('10 of 10 against 8 of 10 is no evidence of a difference (p = 0.47)', () => {
    expect(fisherExact(10, 10, 8, 10)).toBeCloseTo(0.4737, 4);
    expect(fisherExact(8, 10, 10, 10)).toBeCloseTo(fisherExact(10, 10, 8, 10), 12);
  });

  it('30 of 30 against 20 of 30 is (p < 0.001); equal counts give p = 1', () => {
    expect(fisherExact(30, 30, 20, 30)).toBeLessThan(0.001);
    expect(fisherExact(7, 10, 7, 10)).toBeCloseTo(1, 12);
    expect(fisherExact(0, 5, 0, 9)).toBeCloseTo(1, 12);
  });

  it('refuses what is not a count', () => {
    expect(() => fisherExact(11, 10, 1, 10)).toThrow(/11 successes of 10 runs/);
    expect(() => fisherExact(1.5, 10, 1, 10)).toThrow(RangeError);
  });
});

describe('the permutation test of mean task time', () => {
  it('enumerates small samples exactly', () => {
    // Of the 20 ways to split 1..6 in halves, only {1,2,3} | {4,5,6} and its mirror are as extreme.
    expect(permutationTest([1, 2, 3], [4, 5, 6])).toBeCloseTo(2 / 20, 12);
    expect(permutationTest([1, 2], [1, 2])).toBe(1);
  });

  it('draws seeded relabelings for large samples: clear shifts are found, none invented, repeatably', () => {
    const base = Array.from({ length: 30 }, (_, i) => 10 + ((i * 7) % 11));
    const shifted = base.map((t) => t + 6);
    const p = permutationTest(base, shifted, { rounds: 5000 });
    expect(p).toBeLessThan(0.001);
    expect(p).toBeGreaterThan(0); // (1 + hits) / (1 + rounds) never claims certainty
    expect(permutationTest(base, [...base].reverse(), { rounds: 5000 })).toBeGreaterThan(0.9);
    expect(permutationTest(base, shifted, { rounds: 5000, seed: 3 })).toBe(
      permutationTest(base, shifted, { rounds: 5000, seed: 3 }),
    );
  });

  it('is undefined without runs on one side', () => {
    expect(permutationTest([], [1, 2])).toBeNaN();
  });
});
