/**
 * Calibration from the motion-capture frame to the table frame (z up, origin at the table
 * centre). Fitted by least squares from >= 3 point pairs: a 3D rigid transform (Horn's closed-form
 * quaternion method, the same optimum as Kabsch/Umeyama without scale, and never a reflection) or
 * a planar one (yaw + translation) when only the table plane matters. Points are first turned
 * Z-up (see axes.ts), so the stored transform maps Z-up mocap coordinates to the table.
 * One calibration is saved per setup as JSON.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { orientationFromZUp, orientationToZUp, pointFromZUp, pointToZUp, type UpAxis } from './axes';
import { symmetricEigen } from './eigen';
import {
  add,
  IDENTITY,
  norm,
  quatConjugate,
  quatMultiply,
  quatNormalize,
  rotate,
  sub,
  yawQuat,
  type Quat,
  type Vec3,
} from './rotation';

export interface PointPair {
  /** Where the motion capture saw the point (its own frame and up axis). */
  mocap: Vec3;
  /** Where the point is on the table, [x, y] (z = 0, the table surface) or [x, y, z]. */
  table: [number, number] | Vec3;
}

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const setupName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - only');

export const calibrationSchema = z
  .object({
    setup: setupName,
    kind: z.enum(['2d', '3d']),
    upAxis: z.enum(['y', 'z']),
    /** Z-up mocap -> table: p_table = rotate(rotation, p) + translation. Quaternion x, y, z, w. */
    rotation: z.tuple([finite, finite, finite, finite]),
    translation: z.tuple([finite, finite, finite]),
    residual: z.object({ rms: finite, max: finite, pairs: z.number().int().min(0) }).strict(),
    createdAt: z.string(),
  })
  .strict();

export type Calibration = z.infer<typeof calibrationSchema>;

export class CalibrationError extends Error {
  override name = 'CalibrationError';
}

/** No calibration: the table frame is the Z-up motion-capture frame. */
export function identityCalibration(upAxis: UpAxis, setup = 'identity'): Calibration {
  return {
    setup,
    kind: '3d',
    upAxis,
    rotation: [...IDENTITY],
    translation: [0, 0, 0],
    residual: { rms: 0, max: 0, pairs: 0 },
    createdAt: new Date(0).toISOString(),
  };
}

export function tablePoint(c: Calibration, mocap: Vec3): Vec3 {
  return add(rotate(c.rotation, pointToZUp(mocap, c.upAxis)), c.translation);
}

export function tableOrientation(c: Calibration, mocap: Quat): Quat {
  return quatMultiply(c.rotation, orientationToZUp(mocap, c.upAxis));
}

function centroid(ps: Vec3[]): Vec3 {
  const c: Vec3 = [0, 0, 0];
  for (const p of ps) for (let k = 0; k < 3; k++) c[k]! += p[k]! / ps.length;
  return c;
}

function checkPairs(pairs: readonly PointPair[]): void {
  if (pairs.length < 3) throw new CalibrationError(`need at least 3 point pairs, got ${pairs.length}`);
  for (const [i, p] of pairs.entries()) {
    if (![...p.mocap, ...p.table].every(Number.isFinite))
      throw new CalibrationError(`pair ${i} has a non-finite value`);
  }
}

/** Rejects point sets whose points (nearly) lie on a line: the rotation about that line is unknown. */
function checkNotCollinear(ps: Vec3[], dims: 2 | 3): void {
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

function residualOf(src: Vec3[], dst: Vec3[], rotation: Quat, translation: Vec3): Calibration['residual'] {
  let sum = 0;
  let max = 0;
  src.forEach((p, i) => {
    const e = norm(sub(add(rotate(rotation, p), translation), dst[i]!));
    sum += e * e;
    max = Math.max(max, e);
  });
  return { rms: Math.sqrt(sum / src.length), max, pairs: src.length };
}

function tableVec(t: PointPair['table']): Vec3 {
  return [t[0], t[1], t[2] ?? 0];
}

/** Least-squares rotation + translation (6 dof) from Z-up mocap points to table points. */
export function fitCalibration3d(pairs: readonly PointPair[], upAxis: UpAxis, setup: string): Calibration {
  checkPairs(pairs);
  const src = pairs.map((p) => pointToZUp(p.mocap, upAxis));
  const dst = pairs.map((p) => tableVec(p.table));
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
  const translation = sub(cd, rotate(rotation, cs));
  return finish(setup, '3d', upAxis, rotation, translation, residualOf(src, dst, rotation, translation));
}

/**
 * Least-squares yaw + planar translation (3 dof) in the table plane; the height offset is the
 * mean difference. Use when the mocap vertical is trusted to match the table normal.
 */
export function fitCalibration2d(pairs: readonly PointPair[], upAxis: UpAxis, setup: string): Calibration {
  checkPairs(pairs);
  const src = pairs.map((p) => pointToZUp(p.mocap, upAxis));
  const dst = pairs.map((p) => tableVec(p.table));
  const fit = fitPlanarRigid(src, dst);
  return finish(setup, '2d', upAxis, yawQuat(fit.yaw), fit.translation, fit.residual);
}

/** A planar rigid transform dst = Rz(yaw) src + translation, and how well it fits. */
export interface PlanarFit {
  yaw: number;
  translation: Vec3;
  residual: Calibration['residual'];
  /** Distance of each transformed source point from its destination (m), in pair order. */
  errors: number[];
}

/**
 * The pure planar fit behind fitCalibration2d, for any two frames that share their vertical (it
 * also fits the table -> robot base calibration): yaw and xy translation by least squares in the
 * plane, the height offset as the mean difference. Needs >= 3 points that do not lie on a line.
 */
export function fitPlanarRigid(src: readonly Vec3[], dst: readonly Vec3[]): PlanarFit {
  if (src.length !== dst.length)
    throw new CalibrationError(`${src.length} source points but ${dst.length} destination points`);
  if (src.length < 3) throw new CalibrationError(`need at least 3 point pairs, got ${src.length}`);
  for (const [i, p] of src.entries()) {
    if (![...p, ...dst[i]!].every(Number.isFinite))
      throw new CalibrationError(`pair ${i} has a non-finite value`);
  }
  checkNotCollinear([...src], 2);
  const cs = centroid([...src]);
  const cd = centroid([...dst]);
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
  const translation = sub(cd, rotate(rotation, cs));
  const errors = src.map((p, i) => norm(sub(add(rotate(rotation, p), translation), dst[i]!)));
  return { yaw, translation, residual: residualOf([...src], [...dst], rotation, translation), errors };
}

function finish(
  setup: string,
  kind: '2d' | '3d',
  upAxis: UpAxis,
  rotation: Quat,
  translation: Vec3,
  residual: Calibration['residual'],
): Calibration {
  return calibrationSchema.parse({
    setup,
    kind,
    upAxis,
    rotation,
    translation,
    residual,
    createdAt: new Date().toISOString(),
  });
}

export function calibrationFile(dir: string, setup: string): string {
  setupName.parse(setup);
  return path.join(dir, `${setup}.json`);
}

export function saveCalibration(dir: string, c: Calibration): string {
  const file = calibrationFile(dir, c.setup);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(calibrationSchema.parse(c), null, 2)}\n`);
  return file;
}

export function loadCalibration(dir: string, setup: string): Calibration {
  const file = calibrationFile(dir, setup);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CalibrationError(`${file}: ${(err as Error).message}`);
  }
  const result = calibrationSchema.safeParse(json);
  if (!result.success) throw new CalibrationError(`${file}: invalid calibration: ${result.error.message}`);
  return result.data;
}

/** The inverse mapping, table -> mocap (the virtual server streams what Motive would see). */
export function mocapPoint(c: Calibration, table: Vec3): Vec3 {
  return pointFromZUp(rotate(quatConjugate(c.rotation), sub(table, c.translation)), c.upAxis);
}

export function mocapOrientation(c: Calibration, table: Quat): Quat {
  return orientationFromZUp(quatMultiply(quatConjugate(c.rotation), table), c.upAxis);
}
