/**
 * A 3-vector (x, y, z), in whatever frame and unit its user names: motion-capture positions, tool
 * positions and twists in the robot's base frame, rotation vectors. The one definition every
 * layer shares.
 */
export type Vec3 = [number, number, number];

/** A unit quaternion (x, y, z, w): motion-capture orientations, calibration rotations. */
export type Quat = [number, number, number, number];
