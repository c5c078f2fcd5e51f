/**
 * Small symmetric matrices: eigen-decomposition by cyclic Jacobi rotations (exact enough, always
 * converges), the pseudo-inverse from it, and the matrix product the covariances need.
 */

/** Returns eigenvalues and eigenvectors (columns of `vectors`, i.e. vectors[row][col]). */
export function symmetricEigen(m: readonly (readonly number[])[]): { values: number[]; vectors: number[][] } {
  const n = m.length;
  const a = m.map((row) => row.slice());
  const v: number[][] = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)),
  );
  for (let sweep = 0; sweep < 64; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: a.map((row, i) => row[i]!), vectors: v };
}

/**
 * The pseudo-inverse V diag(1/lambda) V' of a symmetric matrix from its eigen-decomposition, each
 * eigenvalue raised to at least `floor` first: a direction the data leave flat gets a large but
 * finite variance instead of an infinite one.
 */
export function spectralInverse(
  eigen: { values: readonly number[]; vectors: readonly (readonly number[])[] },
  floor: number,
): number[][] {
  const { values, vectors } = eigen;
  const n = values.length;
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) =>
      values.reduce((s, l, k) => s + (vectors[i]![k]! * vectors[j]![k]!) / Math.max(l, floor), 0),
    ),
  );
}

/** The product of two square matrices of one size. */
export function matrixProduct(
  a: readonly (readonly number[])[],
  b: readonly (readonly number[])[],
): number[][] {
  const n = a.length;
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      let s = 0;
      for (let k = 0; k < n; k++) s += a[i]![k]! * b[k]![j]!;
      return s;
    }),
  );
}
