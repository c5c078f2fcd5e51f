import { describe, expect, it } from 'vitest';
import { quantileOfSorted } from '../../src-main/common/quantile';

describe('quantileOfSorted (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('the p99 of 100 samples is the 99th, the p50 the 50th', () => {
    expect(quantileOfSorted(hundred, 0.99)).toBe(99);
    expect(quantileOfSorted(hundred, 0.5)).toBe(50);
  });

  it('rounds a rank up: the p90 of 3 samples is the largest, the p0 the smallest', () => {
    expect(quantileOfSorted([1, 2, 3], 0.9)).toBe(3);
    expect(quantileOfSorted([1, 2, 3], 0)).toBe(1);
    expect(quantileOfSorted([7], 0.99)).toBe(7);
  });

  it('is NaN for no samples', () => {
    expect(quantileOfSorted([], 0.5)).toBeNaN();
  });
});
