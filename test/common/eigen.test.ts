/**
 * The small symmetric-matrix algebra the physics fit and the calibration share: eigen-decomposition,
 * the floored pseudo-inverse and the matrix product.
 */
import { describe, expect, it } from 'vitest';
import { matrixProduct, spectralInverse, symmetricEigen } from '../../src-main/common/eigen';

describe('symmetric matrices', () => {
  it('finds eigenvalues and eigenvectors of a symmetric matrix', () => {
    const { values, vectors } = symmetricEigen([
      [2, 1],
      [1, 2],
    ]);
    const order = values[0]! < values[1]! ? [0, 1] : [1, 0];
    expect(values[order[0]!]).toBeCloseTo(1, 12);
    expect(values[order[1]!]).toBeCloseTo(3, 12);
    const v = vectors.map((row) => row[order[1]!]!);
    expect(Math.abs(v[0]!)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(v[0]! * v[1]!).toBeGreaterThan(0);
  });

  it('inverts a full-rank matrix: the product with it is the identity', () => {
    const m = [
      [4, 1, 0.5],
      [1, 3, 0.2],
      [0.5, 0.2, 2],
    ];
    const identity = matrixProduct(m, spectralInverse(symmetricEigen(m), 1e-12));
    identity.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(i === j ? 1 : 0, 12)));
  });

  it('floors a flat direction: its variance is 1/floor, not infinite', () => {
    const inverse = spectralInverse(
      symmetricEigen([
        [1, 0],
        [0, 0],
      ]),
      1e-6,
    );
    expect(inverse[0]![0]).toBeCloseTo(1, 12);
    expect(inverse[1]![1]).toBeCloseTo(1e6, 3);
    expect(inverse[0]![1]).toBe(0);
  });

  it('multiplies in order: A B differs from B A', () => {
    const a = [
      [1, 2],
      [0, 1],
    ];
    const b = [
      [1, 0],
      [3, 1],
    ];
    expect(matrixProduct(a, b)).toEqual([
      [7, 2],
      [3, 1],
    ]);
    expect(matrixProduct(b, a)).toEqual([
      [1, 2],
      [3, 7],
    ]);
  });
});
