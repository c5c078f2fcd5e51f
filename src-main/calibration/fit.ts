/**
 * The least-squares fits behind every calibration: a 3D rigid transform from >= 3 point pairs
 * (Horn's closed-form quaternion method, the same optimum as Kabsch/Umeyama without scale, and
 * never a reflection), or a planar one (yaw + translation) between two frames that share their
 * vertical. Each reports how well it matched its points.
 */
import { add, norm, quatNormalize, rotate, sub, yawQuat, type Quat, type Vec3 } from '../common/rotation';
import { symmetricEigen } from '../common/eigen';
import { residualOf, type Residual } from './residual';

export class CalibrationError extends Error {
  override name = 'CalibrationError';
}

/** A rigid transform dst = rotate(rotation, src) + translation, and how well it fits. */
export interface RigidFit {
  rotation: Quat;
  translation: Vec3;
  residual: Residual;
  /** Distance of each transformed source point from its destination (m), in pair order. */
  errors: number[];
}

/** A planar rigid fit: its rotation is a yaw about +z. */
export interface PlanarFit extends RigidFit {
  yaw: number;
}

function centroid(ps: readonly Vec3[]): Vec3 {
  const c: Vec3 = [0, 0, 0];
  for (const p of ps) for (let k = 0; k < 3; k++) c[k]! += p[k]! / ps.length;
  return c;
}

function checkPairs(src: readonly Vec3[], dst: readonly Vec3[]): void {
  if (src.length !== dst.length)
    throw new CalibrationError(`${src.length} source points but ${dst.length} destination points`);
  if (src.length < 3) throw new CalibrationError(`need at least 3 point pairs, got ${src.length}`);
  for (const [i, p] of src.entries()) {
    if (![...p, ...dst[i]!].every(Number.isFinite))
      throw new CalibrationError(`pair ${i} has a non-finite value`);
  }
}

/** Rejects point sets whose points (nearly) lie on a line: the rotation about that line is unknown. */
function checkNotCollinear(ps: readonly Vec3[], dims: 2 | 3): void {
  let a = 0;
  let b = 0;
  let far = -1;
  for (let i = 0; i < ps.length; i++) {
    for (let j = i + 1; j < ps.length; j++) {
      const d = norm(sub(ps[i]!, ps[j]!));
      if (d > far) [far, a, b] = [d, i, j];
    }
  }
  const axis = sub(ps[b]!, ps[a]!);
  let off = 0;
  for (const p of ps) {
    const r = sub(p, ps[a]!);
    const cross: Vec3 = [
      r[1] * axis[2] - r[2] * axis[1],
      r[2] * axis[0] - r[0] * axis[2],
      r[0] * axis[1] - r[1] * axis[0],
    ];
    off = Math.max(off, dims === 3 ? norm(cross) / far : Math.abs(cross[2]) / far);
  }
  if (!(far > 1e-9) || off < 1e-6 * Math.max(far, 1e-3)) {
    throw new CalibrationError(
      'the calibration points lie on a line; use at least 3 points that span the table',
    );
  }
}

function fitted(src: readonly Vec3[], dst: readonly Vec3[], rotation: Quat, translation: Vec3) {
  const errors = src.map((p, i) => norm(sub(add(rotate(rotation, p), translation), dst[i]!)));
  return { rotation, translation, residual: residualOf(errors), errors };
}

/** Least-squares rotation + translation (6 dof) from `src` to `dst` points. */
export function fitRigid3d(src: readonly Vec3[], dst: readonly Vec3[]): RigidFit {
  checkPairs(src, dst);
  checkNotCollinear(src, 3);
  const cs = centroid(src);
  const cd = centroid(dst);
  // S[a][b] = sum over pairs of (src - cs)[a] * (dst - cd)[b]
  const S = [0, 1, 2].map(() => [0, 0, 0]);
  src.forEach((p, i) => {
    const a = sub(p, cs);
    const b = sub(dst[i]!, cd);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) S[r]![c]! += a[r]! * b[c]!;
  });
  const [xx, xy, xz] = S[0] as Vec3;
  const [yx, yy, yz] = S[1] as Vec3;
  const [zx, zy, zz] = S[2] as Vec3;
  const N = [
    [xx + yy + zz, yz - zy, zx - xz, xy - yx],
    [yz - zy, xx - yy - zz, xy + yx, zx + xz],
    [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
    [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
  ];
  const { values, vectors } = symmetricEigen(N);
  const best = values.indexOf(Math.max(...values));
  const col = vectors.map((row) => row[best]!);
  // Horn's eigenvector is (w, x, y, z).
  const rotation = quatNormalize([col[1]!, col[2]!, col[3]!, col[0]!]);
  return fitted(src, dst, rotation, sub(cd, rotate(rotation, cs)));
}

/**
 * Least-squares yaw and xy translation in the plane, the height offset as the mean difference,
 * for two frames that share their vertical (motion capture -> table when its vertical is trusted,
 * table -> robot base always). Needs >= 3 points that do not lie on a line.
 */
export function fitPlanarRigid(src: readonly Vec3[], dst: readonly Vec3[]): PlanarFit {
  checkPairs(src, dst);
  checkNotCollinear(src, 2);
  const cs = centroid(src);
  const cd = centroid(dst);
  let sin = 0;
  let cos = 0;
  src.forEach((p, i) => {
    const a = sub(p, cs);
    const b = sub(dst[i]!, cd);
    cos += a[0] * b[0] + a[1] * b[1];
    sin += a[0] * b[1] - a[1] * b[0];
  });
  const yaw = Math.atan2(sin, cos);
  const rotation = yawQuat(yaw);
  return { yaw, ...fitted(src, dst, rotation, sub(cd, rotate(rotation, cs))) };
}
