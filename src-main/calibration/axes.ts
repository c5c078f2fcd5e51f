/**
 * Motive streams Y-up by default (its "Up Axis" streaming setting can give Z-up). Everything
 * downstream works Z-up, so poses are turned into a Z-up motion-capture frame first: a +90 degree
 * rotation about x maps (x, y, z) to (x, -z, y), i.e. Motive's up (+y) becomes +z.
 */
import { axisAngle, quatConjugate, quatMultiply, type Quat, type Vec3 } from '../common/rotation';

export type UpAxis = 'y' | 'z';

const Y_UP_TO_Z_UP: Quat = axisAngle([1, 0, 0], Math.PI / 2);
const Z_UP_TO_Y_UP: Quat = quatConjugate(Y_UP_TO_Z_UP);

export function pointToZUp(p: Vec3, up: UpAxis): Vec3 {
  return up === 'y' ? [p[0], -p[2], p[1]] : [p[0], p[1], p[2]];
}

export function pointFromZUp(p: Vec3, up: UpAxis): Vec3 {
  return up === 'y' ? [p[0], p[2], -p[1]] : [p[0], p[1], p[2]];
}

/**
 * A body orientation in the Z-up frame. The body's own axes are re-expressed too (Motive gives a
 * new rigid body the world's axes, so with Y-up its local "up" is its y axis), which makes a
 * turn about the vertical a pure yaw in both conventions.
 */
export function orientationToZUp(q: Quat, up: UpAxis): Quat {
  if (up === 'z') return q;
  return quatMultiply(quatMultiply(Y_UP_TO_Z_UP, q), Z_UP_TO_Y_UP);
}

export function orientationFromZUp(q: Quat, up: UpAxis): Quat {
  if (up === 'z') return q;
  return quatMultiply(quatMultiply(Z_UP_TO_Y_UP, q), Y_UP_TO_Z_UP);
}
