/**
 * The motion-capture -> table calibration (table frame: z up, origin at the table centre): its
 * schema, its fit from point pairs (3D, or planar when only the table plane matters), applying it
 * both ways, and its own file per setup name. Points are first turned Z-up (axes.ts), so the
 * stored transform maps Z-up motion-capture coordinates to the table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { PlanarFrame } from '#contract/lab-view';
import {
  add,
  IDENTITY,
  quatConjugate,
  quatMultiply,
  rotate,
  sub,
  type Quat,
  type Vec3,
} from '../common/rotation';
import { orientationFromZUp, orientationToZUp, pointFromZUp, pointToZUp, type UpAxis } from './axes';
import { CalibrationError, fitPlanarRigid, fitRigid3d, type RigidFit } from './fit';
import { CALIBRATION_LIMITS as L } from './limits';
import { residualMismatch, residualOf, residualSchema, type Residual } from './residual';
import { readStoredJson } from '../common/stored-json';
import { applyPivot, pivotsSchema } from './pivots';

export interface PointPair {
  /** Where the motion capture saw the point (its own frame and up axis). */
  mocap: Vec3;
  /** Where the point is on the table, [x, y] (z = 0, the table surface) or [x, y, z]. */
  table: [number, number] | Vec3;
}

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
/** A coordinate or translation component, m: finite and within a lab room. */
const coordinate = finite.refine(
  (v) => Math.abs(v) <= L.distance,
  `must be within ±${L.distance} m (the size of a lab)`,
);
const point3 = z.tuple([coordinate, coordinate, coordinate]);
const setupName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - only');

export const calibrationSchema = z
  .object({
    setup: setupName,
    kind: z.enum(['2d', '3d']),
    upAxis: z.enum(['y', 'z']),
    /** Z-up mocap -> table: p_table = rotate(rotation, p) + translation. Quaternion x, y, z, w. */
    rotation: z
      .tuple([finite, finite, finite, finite])
      .refine(
        (q) => Math.abs(Math.hypot(...q) - 1) <= L.unitTolerance,
        `must be a unit quaternion (norm 1 within ${L.unitTolerance})`,
      ),
    translation: point3,
    residual: residualSchema,
    /**
     * The point pairs the calibration was fitted to (motion capture as streamed, table): its
     * residual is recomputed from them on load. Absent in calibrations written before they were
     * kept, or not fitted (the virtual lab's truth).
     */
    points: z
      .array(
        z.object({ mocap: point3, table: z.union([z.tuple([coordinate, coordinate]), point3]) }).strict(),
      )
      .optional(),
    /**
     * Each rigid body's pivot offset (calibration/pivots.ts): where the object is against the
     * pose Motive streams. A body without one is taken as its pivot, which pre-flight refuses.
     */
    pivots: pivotsSchema.optional(),
    createdAt: z.string(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const again = mocapResidual(c);
    const problem = again && residualMismatch(c.residual, again, L.residualTolerance);
    if (problem) ctx.addIssue({ code: 'custom', path: ['residual'], message: problem });
  });

export type Calibration = z.infer<typeof calibrationSchema>;

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

/**
 * A rigid body's object on the table: its streamed pivot pose through the calibration and the
 * body's pivot offset (pivots.ts). The one place a streamed pose becomes an object's pose.
 */
export function bodyOnTable(
  c: Calibration,
  name: string,
  position: Vec3,
  orientation: Quat,
): { position: Vec3; orientation: Quat } {
  return applyPivot(tablePoint(c, position), tableOrientation(c, orientation), c.pivots?.[name]);
}

/**
 * A rigid body's object point in the motion-capture frame (as streamed, its up axis): the pivot
 * carried through the body's offset. What the motion capture -> table fit takes for the pusher.
 */
export function bodyPointInMocap(
  c: Pick<Calibration, 'upAxis' | 'pivots'>,
  name: string,
  position: Vec3,
  orientation: Quat,
): Vec3 {
  const p = applyPivot(
    pointToZUp(position, c.upAxis),
    orientationToZUp(orientation, c.upAxis),
    c.pivots?.[name],
  );
  return pointFromZUp(p.position, c.upAxis);
}

/** The residual of a calibration's stored points (their distances after the transform, m); null without points. */
export function mocapResidual(
  c: Omit<Calibration, 'setup' | 'createdAt' | 'kind' | 'residual'>,
): Residual | null {
  if (!c.points || c.points.length === 0) return null;
  return residualOf(
    c.points.map((p) => {
      const t = tablePoint(c as Calibration, p.mocap);
      const [x, y, z = 0] = p.table;
      return Math.hypot(t[0] - x, t[1] - y, t[2] - z);
    }),
  );
}

/** The inverse mapping, table -> mocap (the virtual server streams what Motive would see). */
export function mocapPoint(c: Calibration, table: Vec3): Vec3 {
  return pointFromZUp(rotate(quatConjugate(c.rotation), sub(table, c.translation)), c.upAxis);
}

export function mocapOrientation(c: Calibration, table: Quat): Quat {
  return orientationFromZUp(quatMultiply(quatConjugate(c.rotation), table), c.upAxis);
}

/** The motion-capture frame (Z-up) on the table: its origin and the heading of its x axis. */
export function mocapFrameOnTable(c: Pick<Calibration, 'rotation' | 'translation'>): PlanarFrame {
  const x = rotate(c.rotation, [1, 0, 0]);
  return { x: c.translation[0], y: c.translation[1], yaw: Math.atan2(x[1], x[0]) };
}

function zUpPairs(pairs: readonly PointPair[], upAxis: UpAxis): { src: Vec3[]; dst: Vec3[] } {
  return {
    src: pairs.map((p) => pointToZUp(p.mocap, upAxis)),
    dst: pairs.map(({ table: t }) => [t[0], t[1], t[2] ?? 0]),
  };
}

/** Least-squares rotation + translation (6 dof) from Z-up mocap points to table points. */
export function fitCalibration3d(pairs: readonly PointPair[], upAxis: UpAxis, setup: string): Calibration {
  const { src, dst } = zUpPairs(pairs, upAxis);
  return calibrationOf(setup, '3d', upAxis, fitRigid3d(src, dst), pairs);
}

/**
 * Least-squares yaw + planar translation (3 dof) in the table plane; the height offset is the
 * mean difference. Use when the mocap vertical is trusted to match the table normal.
 */
export function fitCalibration2d(pairs: readonly PointPair[], upAxis: UpAxis, setup: string): Calibration {
  const { src, dst } = zUpPairs(pairs, upAxis);
  return calibrationOf(setup, '2d', upAxis, fitPlanarRigid(src, dst), pairs);
}

function calibrationOf(
  setup: string,
  kind: '2d' | '3d',
  upAxis: UpAxis,
  fit: RigidFit,
  pairs: readonly PointPair[],
): Calibration {
  return calibrationSchema.parse({
    setup,
    kind,
    upAxis,
    rotation: fit.rotation,
    translation: fit.translation,
    residual: fit.residual,
    points: pairs.map((p) => ({ mocap: [...p.mocap], table: [...p.table] })),
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
  return readStoredJson(file, calibrationSchema, { what: 'calibration', error: CalibrationError });
}
