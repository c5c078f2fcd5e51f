/**
 * Rotations and vectors: quaternions (x, y, z, w) for motion-capture poses and calibrations, and
 * 3x3 matrices for the robot's tool pose (UR rotation vectors) and its base frame.
 */
import type { Quat, Vec3 } from '#contract/geometry';

export type { Quat, Vec3 };

export const IDENTITY: Quat = [0, 0, 0, 1];

export function quatMultiply(a: Quat, b: Quat): Quat {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

export function quatConjugate(q: Quat): Quat {
  return [-q[0], -q[1], -q[2], q[3]];
}

export function quatNormalize(q: Quat): Quat {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  if (!(n > 0) || !Number.isFinite(n)) return [...IDENTITY];
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/** Rotates v by the unit quaternion q. */
export function rotate(q: Quat, v: Vec3): Vec3 {
  const [x, y, z, w] = q;
  // v' = v + 2w (u x v) + 2 u x (u x v), u = (x, y, z)
  const cx = y * v[2] - z * v[1];
  const cy = z * v[0] - x * v[2];
  const cz = x * v[1] - y * v[0];
  return [
    v[0] + 2 * (w * cx + y * cz - z * cy),
    v[1] + 2 * (w * cy + z * cx - x * cz),
    v[2] + 2 * (w * cz + x * cy - y * cx),
  ];
}

export function axisAngle(axis: Vec3, angle: number): Quat {
  const n = Math.hypot(axis[0], axis[1], axis[2]);
  const s = Math.sin(angle / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

/** Rotation about +z by yaw. */
export function yawQuat(yaw: number): Quat {
  return [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)];
}

/** Heading of the body x axis projected onto the xy plane, counter-clockwise about +z. */
export function yawOf(q: Quat): number {
  const xAxis = rotate(q, [1, 0, 0]);
  return Math.atan2(xAxis[1], xAxis[0]);
}

export function add(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

export function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

export function norm(a: Vec3): number {
  return Math.hypot(a[0], a[1], a[2]);
}

/** A rotation matrix, rows first. */
export type Mat3 = [Vec3, Vec3, Vec3];

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

export function mulTransposeVec(m: Mat3, v: readonly number[]): Vec3 {
  return [
    m[0][0] * v[0]! + m[1][0] * v[1]! + m[2][0] * v[2]!,
    m[0][1] * v[0]! + m[1][1] * v[1]! + m[2][1] * v[2]!,
    m[0][2] * v[0]! + m[1][2] * v[1]! + m[2][2] * v[2]!,
  ];
}

export function cross(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

/**
 * The UR rotation vector (axis * angle, angle in [0, pi]) of a rotation matrix: the inverse of
 * rotationFromVector. Through the quaternion (Shepperd's method), so it stays exact at an angle of
 * pi, where a tool pointing down lives and the trace formula loses the axis.
 */
export function vectorFromRotation(m: Mat3): Vec3 {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const trace = a + e + i;
  let q: Quat;
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    q = [(h - f) / s, (c - g) / s, (d - b) / s, s / 4];
  } else if (a >= e && a >= i) {
    const s = 2 * Math.sqrt(1 + a - e - i);
    q = [s / 4, (b + d) / s, (c + g) / s, (h - f) / s];
  } else if (e >= i) {
    const s = 2 * Math.sqrt(1 + e - a - i);
    q = [(b + d) / s, s / 4, (f + h) / s, (c - g) / s];
  } else {
    const s = 2 * Math.sqrt(1 + i - a - e);
    q = [(c + g) / s, (f + h) / s, s / 4, (d - b) / s];
  }
  // q and -q are one rotation: take w >= 0, so the angle is at most pi.
  const [x, y, z, w] = q[3] < 0 ? [-q[0], -q[1], -q[2], -q[3]] : q;
  const sinHalf = Math.hypot(x, y, z);
  if (sinHalf < 1e-12) return [0, 0, 0];
  const angle = 2 * Math.atan2(sinHalf, w);
  return [(x / sinHalf) * angle, (y / sinHalf) * angle, (z / sinHalf) * angle];
}

/** The product a b of two rotation matrices. */
export function mulMat(a: Mat3, b: Mat3): Mat3 {
  const col = (j: 0 | 1 | 2): Vec3 => [b[0][j], b[1][j], b[2][j]];
  const c0 = mulVec(a, col(0));
  const c1 = mulVec(a, col(1));
  const c2 = mulVec(a, col(2));
  return [
    [c0[0], c1[0], c2[0]],
    [c0[1], c1[1], c2[1]],
    [c0[2], c1[2], c2[2]],
  ];
}
