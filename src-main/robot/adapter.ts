/**
 * Robot adapter: between the planner's world (pusher position and velocity in the table frame) and
 * the robot's (tool pose and twist in the base frame).
 *
 * Calibration (from motion capture, #5) maps the table frame to the base frame: p_base = R p_table + t.
 * The control program moves the tool at a fixed height and orientation in the base xy plane, so
 * the table must be parallel to it: R is a rotation about z, within a small tilt tolerance (the
 * tilt of a fitted calibration is reported, not silently absorbed). The pusher sits at a fixed
 * offset from the tool centre point, given in the tool frame.
 */
import { z } from 'zod';
import type { Vec3 } from '../contract/geometry';

export type Mat3 = [Vec3, Vec3, Vec3];

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const vec3 = z.tuple([finite, finite, finite]);

export const calibrationInputSchema = z.union([
  z
    .object({ R: z.tuple([vec3, vec3, vec3]).describe('table -> base rotation'), t: vec3.describe('m') })
    .strict(),
  z
    .object({
      yaw: finite.describe('rad, table x axis in the base frame'),
      offset: vec3.describe('m, table origin in base'),
    })
    .strict(),
]);
export type CalibrationInput = z.infer<typeof calibrationInputSchema>;

export interface AdapterOptions {
  calibration: CalibrationInput;
  /** Pusher reference point (e.g. the centre of its tip) from the tool centre point, tool frame, m. */
  pusherOffset: Vec3;
  /** Largest accepted angle between the table normal and base z, rad. */
  maxTilt?: number;
}

export class CalibrationError extends Error {
  override name = 'CalibrationError';
}

export function rotZ(yaw: number): Mat3 {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return [
    [c, -s, 0],
    [s, c, 0],
    [0, 0, 1],
  ];
}

/** Rotation matrix of a UR rotation vector (axis * angle), by Rodrigues' formula. */
export function rotationFromVector(r: readonly number[]): Mat3 {
  const [rx, ry, rz] = [r[0]!, r[1]!, r[2]!];
  const angle = Math.hypot(rx, ry, rz);
  if (angle < 1e-12) {
    return [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
  }
  const [x, y, zz] = [rx / angle, ry / angle, rz / angle];
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const C = 1 - c;
  return [
    [c + x * x * C, x * y * C - zz * s, x * zz * C + y * s],
    [y * x * C + zz * s, c + y * y * C, y * zz * C - x * s],
    [zz * x * C - y * s, zz * y * C + x * s, c + zz * zz * C],
  ];
}

export function mulVec(m: Mat3, v: readonly number[]): Vec3 {
  return [
    m[0][0] * v[0]! + m[0][1] * v[1]! + m[0][2] * v[2]!,
    m[1][0] * v[0]! + m[1][1] * v[1]! + m[1][2] * v[2]!,
    m[2][0] * v[0]! + m[2][1] * v[1]! + m[2][2] * v[2]!,
  ];
}

function mulTransposeVec(m: Mat3, v: readonly number[]): Vec3 {
  return [
    m[0][0] * v[0]! + m[1][0] * v[1]! + m[2][0] * v[2]!,
    m[0][1] * v[0]! + m[1][1] * v[1]! + m[2][1] * v[2]!,
    m[0][2] * v[0]! + m[1][2] * v[1]! + m[2][2] * v[2]!,
  ];
}

function cross(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

export class RobotAdapter {
  /** Table -> base rotation, a pure rotation about z (the tilt is measured and bounded). */
  readonly R: Mat3;
  readonly t: Vec3;
  readonly yaw: number;
  /** Angle between the calibrated table normal and base z, rad. */
  readonly tilt: number;
  readonly pusherOffset: Vec3;

  constructor(options: AdapterOptions) {
    const cal = calibrationInputSchema.parse(options.calibration);
    const maxTilt = options.maxTilt ?? 0.02;
    if ('yaw' in cal) {
      this.yaw = cal.yaw;
      this.tilt = 0;
      this.t = [...cal.offset];
    } else {
      checkRotation(cal.R);
      this.yaw = Math.atan2(cal.R[1][0], cal.R[0][0]);
      this.tilt = Math.acos(Math.min(1, Math.max(-1, cal.R[2][2])));
      this.t = [...cal.t];
    }
    if (this.tilt > maxTilt) {
      throw new CalibrationError(
        `table is tilted ${((this.tilt * 180) / Math.PI).toFixed(2)} deg against the robot base (at most ${((maxTilt * 180) / Math.PI).toFixed(2)} deg): the tool moves in the base xy plane`,
      );
    }
    this.R = rotZ(this.yaw);
    this.pusherOffset = [...options.pusherOffset];
  }

  /**
   * Tool velocity (base x, y; m/s) for a pusher velocity in the table frame. The tool does not
   * rotate, so every point of it, the pusher included, moves with the same velocity.
   */
  toolVelocity(pusherVx: number, pusherVy: number): [number, number] {
    const v = mulVec(this.R, [pusherVx, pusherVy, 0]);
    return [v[0], v[1]];
  }

  /** Pusher velocity in the table frame from the tool twist (base frame) at the given tool pose. */
  pusherVelocity(tcpSpeed: readonly number[], tcpPose: readonly number[]): { vx: number; vy: number } {
    const arm = mulVec(rotationFromVector(tcpPose.slice(3)), this.pusherOffset);
    const w = cross(tcpSpeed.slice(3), arm);
    const vBase: Vec3 = [tcpSpeed[0]! + w[0], tcpSpeed[1]! + w[1], tcpSpeed[2]! + w[2]];
    const v = mulTransposeVec(this.R, vBase);
    return { vx: v[0], vy: v[1] };
  }

  /** Pusher position in the table frame (z: height of the pusher point above the table) from a tool pose. */
  pusherPosition(tcpPose: readonly number[]): { x: number; y: number; z: number } {
    const arm = mulVec(rotationFromVector(tcpPose.slice(3)), this.pusherOffset);
    const pBase: Vec3 = [
      tcpPose[0]! + arm[0] - this.t[0],
      tcpPose[1]! + arm[1] - this.t[1],
      tcpPose[2]! + arm[2] - this.t[2],
    ];
    const p = mulTransposeVec(this.R, pBase);
    return { x: p[0], y: p[1], z: p[2] };
  }

  /** Tool position in the base frame that puts the pusher point at (x, y, z) in the table frame. */
  toolPosition(pusher: { x: number; y: number; z: number }, tcpOrientation: readonly number[]): Vec3 {
    const p = mulVec(this.R, [pusher.x, pusher.y, pusher.z]);
    const arm = mulVec(rotationFromVector(tcpOrientation), this.pusherOffset);
    return [p[0] + this.t[0] - arm[0], p[1] + this.t[1] - arm[1], p[2] + this.t[2] - arm[2]];
  }
}

function checkRotation(R: Mat3): void {
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const dot = R[0][i]! * R[0][j]! + R[1][i]! * R[1][j]! + R[2][i]! * R[2][j]!;
      if (Math.abs(dot - (i === j ? 1 : 0)) > 1e-6)
        throw new CalibrationError('calibration R is not orthonormal');
    }
  }
  const det =
    R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) -
    R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
    R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
  if (det < 0) throw new CalibrationError('calibration R is a reflection (determinant -1), not a rotation');
}
