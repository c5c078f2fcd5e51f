/**
 * Rigid-body pivots: where Motive's pose of a body lies against the object it marks. Motive puts a
 * new rigid body's pivot at the centroid of its markers, with its axes along the world axes at the
 * moment the body was created (OptiTrack documentation: Rigid Body properties, Builder pane); its
 * "reset pivot" tools move it. Markers sit on top of a pusher and off-centre on an object, so the
 * streamed pose is not the object's. Each body's offset, measured by the calibration wizard
 * (console/calibration-wizard.ts), turns one into the other:
 *
 *   object position = pivot position + R_pivot * position,  object orientation = R_pivot * Rz(yaw)
 *
 * with `position` in the body frame (the Z-up view of it, calibration/axes.ts) and `yaw` about the
 * body's vertical axis. The vertical part of the offset cannot be seen by either measurement (a
 * turn about the vertical, a placement on the table plane); it is left at the pivot's height and
 * the table fit takes the height from the table points.
 */
import { z } from 'zod';
import {
  add,
  quatConjugate,
  quatMultiply,
  rotate,
  yawOf,
  yawQuat,
  type Quat,
  type Vec3,
} from '../common/rotation';
import { CalibrationError } from './fit';

/** Bounds of a pivot offset: markers within 0.3 m of the object's centre (a pusher's tree, a box). */
export const PIVOT_LIMITS = { position: 0.3, yaw: Math.PI } as const;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const component = finite.refine(
  (v) => Math.abs(v) <= PIVOT_LIMITS.position,
  `must be within ±${PIVOT_LIMITS.position} m (markers on the object they mark)`,
);

/** How a pivot offset was found. */
export const pivotMethodSchema = z.enum([
  /** The tool turned about its vertical axis while the pusher's tip stayed put. */
  'turn',
  /** The object placed on a known pose. */
  'placement',
  /** Measured as zero: the pivot was reset onto the object in Motive. */
  'motive-reset',
  /** The virtual lab's own truth. */
  'truth',
]);
export type PivotMethod = z.infer<typeof pivotMethodSchema>;

export const pivotOffsetSchema = z
  .object({
    /** The object's reference point in the body frame (Z-up view), m. */
    position: z.tuple([component, component, component]),
    /** The object's yaw against the body's axes, rad. */
    yaw: finite.refine(
      (v) => Math.abs(v) <= PIVOT_LIMITS.yaw,
      `must be within ±${PIVOT_LIMITS.yaw.toFixed(4)} rad`,
    ),
    method: pivotMethodSchema,
  })
  .strict();
export type PivotOffset = z.infer<typeof pivotOffsetSchema>;

/** Pivot offsets by rigid-body name. */
export const pivotsSchema = z.record(z.string().min(1), pivotOffsetSchema);
export type Pivots = z.infer<typeof pivotsSchema>;

/** Below these an offset is the pivot reset onto the object (Motive's tools): 1 mm, 0.5 deg. */
export const RESET_TOLERANCE = { position: 0.001, yaw: (0.5 * Math.PI) / 180 } as const;

/** A pose (Z-up) of a body's pivot, carried to the object it marks. */
export function applyPivot(
  position: Vec3,
  orientation: Quat,
  pivot: Pick<PivotOffset, 'position' | 'yaw'> | undefined,
): { position: Vec3; orientation: Quat } {
  if (!pivot) return { position, orientation };
  return {
    position: add(position, rotate(orientation, pivot.position)),
    orientation: quatMultiply(orientation, yawQuat(pivot.yaw)),
  };
}

/** 'motive-reset' when a measured offset is zero within RESET_TOLERANCE, else `method`. */
export function judgedMethod(
  offset: Pick<PivotOffset, 'position' | 'yaw'>,
  method: PivotMethod,
): PivotMethod {
  const [x, y, zz] = offset.position;
  return Math.hypot(x, y, zz) <= RESET_TOLERANCE.position && Math.abs(offset.yaw) <= RESET_TOLERANCE.yaw
    ? 'motive-reset'
    : method;
}

/**
 * An object's pivot offset from one placement at a known pose on the table: the pivot's table pose
 * (position, orientation, through the motion-capture calibration) and where the object truly is.
 * The vertical part is left at zero (see the module comment).
 */
export function pivotFromPlacement(
  pivot: { position: Vec3; orientation: Quat },
  known: { x: number; y: number; theta: number },
): PivotOffset {
  const back = quatConjugate(pivot.orientation);
  const position = rotate(back, [known.x - pivot.position[0], known.y - pivot.position[1], 0]);
  const yaw = yawOf(quatMultiply(back, yawQuat(known.theta)));
  const offset = { position, yaw };
  return { ...offset, method: judgedMethod(offset, 'placement') };
}

/** The turn measurement's fit: the offset, the point the pivot turned about (Z-up mocap), its spread. */
export interface TurnFit {
  offset: PivotOffset;
  centre: Vec3;
  /** Largest horizontal distance of a sample's tip from the centre, m. */
  spread: number;
  /** Angle the samples span, rad. */
  span: number;
}

/** The smallest turn the samples must span (rad): less, and the circle's centre is poorly defined. */
export const MIN_TURN_SPAN = (40 * Math.PI) / 180;

/**
 * The pusher's pivot offset from samples of its pivot pose (Z-up motion-capture frame) while the
 * tool turned about its vertical axis and the tip stayed put: the pivot traces a circle about the
 * tip. Solves p_i + R_i o = t for the offset o and the tip t (least squares), with the offset's
 * vertical part (unseen by a turn about the vertical) held at zero.
 */
export function pivotFromTurn(samples: readonly { position: Vec3; orientation: Quat }[]): TurnFit {
  if (samples.length < 3)
    throw new CalibrationError(`turn the tool to at least 3 angles (have ${samples.length})`);
  const yaws = samples.map((s) => yawOf(s.orientation));
  const first = yaws[0]!;
  const rel = yaws.map((y) => Math.atan2(Math.sin(y - first), Math.cos(y - first)));
  const span = Math.max(...rel) - Math.min(...rel);
  if (span < MIN_TURN_SPAN)
    throw new CalibrationError(
      `the turns span ${((span * 180) / Math.PI).toFixed(0)} deg: at least ${((MIN_TURN_SPAN * 180) / Math.PI).toFixed(0)} deg are needed to find the tip`,
    );
  // Unknowns [o; t]: rows R_i o - t = -p_i, and the constraint (R_0^T e_z) . o = 0.
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (const s of samples) {
    const cols: Vec3[] = [
      rotate(s.orientation, [1, 0, 0]),
      rotate(s.orientation, [0, 1, 0]),
      rotate(s.orientation, [0, 0, 1]),
    ];
    for (let k = 0; k < 3; k++) {
      const row = [cols[0]![k]!, cols[1]![k]!, cols[2]![k]!, 0, 0, 0];
      row[3 + k] = -1;
      rows.push(row);
      rhs.push(-s.position[k]!);
    }
  }
  const up = rotate(quatConjugate(samples[0]!.orientation), [0, 0, 1]);
  rows.push([up[0], up[1], up[2], 0, 0, 0]);
  rhs.push(0);
  const x = leastSquares(rows, rhs);
  const o: Vec3 = [x[0]!, x[1]!, x[2]!];
  const centre: Vec3 = [x[3]!, x[4]!, x[5]!];
  const spread = Math.max(
    ...samples.map((s) => {
      const tip = add(s.position, rotate(s.orientation, o));
      return Math.hypot(tip[0] - centre[0], tip[1] - centre[1]);
    }),
  );
  const offset = { position: o, yaw: 0 };
  return { offset: { ...offset, method: judgedMethod(offset, 'turn') }, centre, spread, span };
}

/** Least squares by the normal equations (a handful of unknowns), Gaussian elimination with pivoting. */
function leastSquares(rows: readonly number[][], rhs: readonly number[]): number[] {
  const n = rows[0]!.length;
  const a = Array.from({ length: n }, (_, i) => [
    ...Array.from({ length: n }, (_, j) => rows.reduce((s, r) => s + r[i]! * r[j]!, 0)),
    rows.reduce((s, r, k) => s + r[i]! * rhs[k]!, 0),
  ]);
  for (let c = 0; c < n; c++) {
    let best = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[best]![c]!)) best = r;
    if (Math.abs(a[best]![c]!) < 1e-12)
      throw new CalibrationError('the turn samples do not determine the tip');
    [a[c], a[best]] = [a[best]!, a[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k <= n; k++) a[r]![k] = a[r]![k]! - f * a[c]![k]!;
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}
