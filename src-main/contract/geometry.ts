/**
 * A 3-vector (x, y, z), in whatever frame and unit its user names: motion-capture positions, tool
 * positions and twists in the robot's base frame, rotation vectors. The one definition every
 * layer shares.
 */
export type Vec3 = [number, number, number];
