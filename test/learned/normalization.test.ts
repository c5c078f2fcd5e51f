import { describe, expect, it } from 'vitest';
import { computeNormalization, standardize, unstandardize } from '../../src-main/learned/normalization';

describe('normalisation', () => {
  const rows = new Float32Array([1, 10, 5, 3, 30, 5, 5, 20, 5, 7, 40, 5]); // 4 rows x 3 columns
  const n = computeNormalization(rows, 3, rows, 3);

  it('computes column means and standard deviations; a constant column gets std 1', () => {
    expect(n.inputMean).toEqual([4, 25, 5]);
    expect(n.inputStd[0]).toBeCloseTo(Math.sqrt(5), 6);
    expect(n.inputStd[1]).toBeCloseTo(Math.sqrt(125), 6);
    expect(n.inputStd[2]).toBe(1);
  });

  it('standardised columns have mean 0 and std 1, and unstandardize undoes standardize', () => {
    const z = standardize(rows.slice(), n.inputMean, n.inputStd);
    for (let c = 0; c < 2; c++) {
      const col = [0, 1, 2, 3].map((r) => z[r * 3 + c]!);
      expect(col.reduce((a, b) => a + b, 0) / 4).toBeCloseTo(0, 6);
      expect(Math.sqrt(col.reduce((a, b) => a + b * b, 0) / 4)).toBeCloseTo(1, 6);
    }
    const back = unstandardize(Float64Array.from(z), n.inputMean, n.inputStd);
    for (let k = 0; k < rows.length; k++) expect(back[k]).toBeCloseTo(rows[k]!, 5);
  });
});
