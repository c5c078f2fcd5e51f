/**
 * The table -> robot base calibration, p_base = R p_table + t: its schema (a fitted yaw and
 * offset, or a matrix written by hand), resolving it to the planar transform the arm works in, its
 * fit from point pairs, and where it puts the base on the table. The control program moves the
 * tool at a fixed height and orientation in the base xy plane, so the table must be parallel to
 * it: R is a rotation about z, within a small tilt tolerance (the tilt of a given matrix is
 * measured and refused past the limit, not silently absorbed).
 */
import { z } from 'zod';
import type { PlanarFrame } from '#contract/lab-view';
import { rotZ, type Mat3, type Vec3 } from '../common/rotation';
import { CalibrationError, fitPlanarRigid } from './fit';
import { CALIBRATION_LIMITS as L } from './limits';
import { residualOf, type Residual } from './residual';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const vec3 = z.tuple([finite, finite, finite]);
/** A translation, m: finite and within a lab room. */
const coordinate = finite.refine(
  (v) => Math.abs(v) <= L.distance,
  `must be within ±${L.distance} m (the size of a lab)`,
);
const point3 = z.tuple([coordinate, coordinate, coordinate]);

export const calibrationInputSchema = z.union([
  z
    .object({
      R: z
        .tuple([vec3, vec3, vec3])
        .superRefine((R, ctx) => {
          const problem = rotationProblem(R);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .describe('table -> base rotation'),
      t: point3.describe('m'),
    })
    .strict(),
  z
    .object({
      yaw: finite.describe('rad, table x axis in the base frame'),
      offset: point3.describe('m, table origin in base'),
    })
    .strict(),
]);

/** A table -> base point pair the fit used: the pusher on the table, where the arm measured it. */
export const basePointSchema = z.object({ table: point3, base: point3 }).strict();
export type BasePoint = z.infer<typeof basePointSchema>;
export type CalibrationInput = z.infer<typeof calibrationInputSchema>;

/** The table -> base transform the arm works in: a rotation about z by `yaw`, then `t`. */
export interface TableToBase {
  /** rotZ(yaw). */
  R: Mat3;
  t: Vec3;
  yaw: number;
  /** Angle between the calibrated table normal and base z, rad. */
  tilt: number;
}

/** Largest accepted angle between the table normal and base z by default, rad. */
export const MAX_TILT = 0.02;

/** The calibration as the arm applies it; throws when it is not a rotation or the table is tilted. */
export function tableToBase(input: CalibrationInput, maxTilt = MAX_TILT): TableToBase {
  // The schema refuses reflections and non-rotations by name: the same error as the checks below.
  const parsed = calibrationInputSchema.safeParse(input);
  if (!parsed.success) throw new CalibrationError(parsed.error.issues.map((i) => i.message).join('; '));
  const cal = parsed.data;
  let yaw: number;
  let tilt: number;
  let t: Vec3;
  if ('yaw' in cal) {
    [yaw, tilt, t] = [cal.yaw, 0, [...cal.offset]];
  } else {
    const problem = rotationProblem(cal.R);
    if (problem) throw new CalibrationError(problem);
    yaw = Math.atan2(cal.R[1][0], cal.R[0][0]);
    tilt = Math.acos(Math.min(1, Math.max(-1, cal.R[2][2])));
    t = [...cal.t];
  }
  if (tilt > maxTilt) {
    throw new CalibrationError(
      `table is tilted ${((tilt * 180) / Math.PI).toFixed(2)} deg against the robot base (at most ${((maxTilt * 180) / Math.PI).toFixed(2)} deg): the tool moves in the base xy plane`,
    );
  }
  return { R: rotZ(yaw), t, yaw, tilt };
}

/** R and t as written (a yaw as rotZ(yaw)), unchecked: how the setup's frames are drawn. */
export function calibrationTransform(c: CalibrationInput): { R: Mat3; t: Vec3 } {
  return 'yaw' in c ? { R: rotZ(c.yaw), t: [...c.offset] } : { R: c.R, t: [...c.t] };
}

/**
 * The robot base on the table: with p_base = R p_table + t the base origin is -R^T t in the table
 * frame and the base x axis is R^T x (the first row of R). Drawn as given, tilt and all.
 */
export function robotBaseOnTable(c: CalibrationInput): PlanarFrame {
  const { R, t } = calibrationTransform(c);
  const origin = [0, 1, 2].map((i) => -(R[0]![i]! * t[0]! + R[1]![i]! * t[1]! + R[2]![i]! * t[2]!));
  return { x: origin[0]!, y: origin[1]!, yaw: Math.atan2(R[0]![1]!, R[0]![0]!) };
}

/**
 * Fits table -> base from the pusher's table points and where the arm measured it in the base
 * frame: planar by construction (the arm moves in the base xy plane).
 */
export function fitRobotBase(
  table: readonly Vec3[],
  base: readonly Vec3[],
): { calibration: CalibrationInput; residual: Residual; errors: number[]; points: BasePoint[] } {
  const fit = fitPlanarRigid(table, base);
  return {
    calibration: { yaw: fit.yaw, offset: fit.translation },
    residual: fit.residual,
    errors: fit.errors,
    points: table.map((p, i) => ({ table: [...p], base: [...base[i]!] })),
  };
}

/** Why R is not a rotation (not orthonormal, or a reflection), or null when it is. */
function rotationProblem(R: Mat3): string | null {
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const dot = R[0][i]! * R[0][j]! + R[1][i]! * R[1][j]! + R[2][i]! * R[2][j]!;
      if (Math.abs(dot - (i === j ? 1 : 0)) > 1e-6) return 'calibration R is not orthonormal';
    }
  }
  const det =
    R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) -
    R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
    R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
  return det < 0 ? 'calibration R is a reflection (determinant -1), not a rotation' : null;
}

/** The residual of table -> base point pairs under a calibration (their distances, m); null without points. */
export function baseResidual(c: CalibrationInput, points: readonly BasePoint[] | undefined): Residual | null {
  if (!points || points.length === 0) return null;
  const { R, t } = calibrationTransform(c);
  return residualOf(
    points.map(({ table: p, base }) => {
      const q = [0, 1, 2].map((i) => R[i]![0]! * p[0] + R[i]![1]! * p[1] + R[i]![2]! * p[2] + t[i]!);
      return Math.hypot(q[0]! - base[0], q[1]! - base[1], q[2]! - base[2]);
    }),
  );
}
