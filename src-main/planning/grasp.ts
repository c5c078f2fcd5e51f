/**
 * The gripper seen from above, and what holding an object means (WAFR 2018 Sec. 5 and 7.2: bring
 * the target "into the robot's hand").
 *
 * The gripper's parts and frame: contract/gripper-geometry.ts.
 *
 * - In the hand: the target's centre lies within the fingers' length and the target fits between
 *   the open fingers without touching either (both gaps above the contact distance). From there
 *   closing the fingers grasps it.
 * - Grasped: the target's centre lies within the fingers' length and both fingers touch it (both
 *   gaps within the contact distance, penetration counting as touch): the closed fingers hold it
 *   from both sides.
 * - d_T, phi_T (the grasp cost): the vector from the middle of the palm's front face (the fixed
 *   point, between the fingers' roots) to the target's centre, its length and its angle from the
 *   forward axis. A fixed point behind the fingers keeps phi_T defined at a grasp, where the
 *   target sits in front of it (the grasp centre itself would give an angle of a vanishing vector).
 */
import type { Gripper } from '#contract/scene';
import { gripperParts, type GripperPose } from '#contract/gripper-geometry';
import { wrapAngle } from '#contract/state';
import type { Footprint, Placed } from '#physics/geometry2d';

/**
 * A finger touches an object when their gap is at most this (m): MuJoCo's soft contacts rest a
 * fraction of a millimetre apart or into each other, and a finger force-limited against an
 * object stops within about 2 mm of penetration (contract/end-effector/parallel-gripper.ts).
 */
export const FINGER_CONTACT = 0.002;

/** The palm and the two fingers as placed rectangles, in the table frame. */
export function gripperBodies(g: Gripper, p: GripperPose): Placed[] {
  return gripperParts(g, p).map(({ hx, hy, ...at }) => ({ footprint: { kind: 'rect', hx, hy }, ...at }));
}

/**
 * The space between the fingers (the hand), in the table frame: where the target must be to be
 * grasped and where any other object is in the way of it. Null with the fingers (nearly) closed.
 */
export function handRegion(g: Gripper, p: GripperPose): Placed | null {
  if (p.opening < 1e-3) return null;
  return {
    footprint: { kind: 'rect', hx: g.finger.length / 2, hy: p.opening / 2 },
    x: p.x,
    y: p.y,
    theta: p.yaw,
  };
}

/** Half the footprint's extent along the unit direction at angle `phi` from its own x axis. */
function halfExtent(f: Footprint, phi: number): number {
  return f.kind === 'disc' ? f.radius : f.hx * Math.abs(Math.cos(phi)) + f.hy * Math.abs(Math.sin(phi));
}

export interface HandRelation {
  /** Target centre in the gripper frame (m). */
  along: number;
  across: number;
  /** Gaps between each finger's inner face and the target (m, negative: overlap). */
  leftGap: number;
  rightGap: number;
  /** The target's centre lies within the fingers' length. */
  withinFingers: boolean;
}

export function handRelation(g: Gripper, p: GripperPose, target: Placed): HandRelation {
  const c = Math.cos(p.yaw);
  const s = Math.sin(p.yaw);
  const dx = target.x - p.x;
  const dy = target.y - p.y;
  const along = c * dx + s * dy;
  const across = -s * dx + c * dy;
  // The target's half-extent along the gripper's y axis, at its angle to the gripper.
  const h = halfExtent(target.footprint, p.yaw + Math.PI / 2 - target.theta);
  return {
    along,
    across,
    leftGap: p.opening / 2 - (across + h),
    rightGap: p.opening / 2 + (across - h),
    withinFingers: Math.abs(along) <= g.finger.length / 2,
  };
}

/** The target lies between the open fingers, touching neither: closing them now grasps it. */
export function inHand(r: HandRelation): boolean {
  return r.withinFingers && r.leftGap > FINGER_CONTACT && r.rightGap > FINGER_CONTACT;
}

/** Both fingers touch the target from either side: it is held. */
export function isGrasped(r: HandRelation): boolean {
  return r.withinFingers && r.leftGap <= FINGER_CONTACT && r.rightGap <= FINGER_CONTACT;
}

/** WAFR 2018 Sec. 5: d_T (m) and phi_T (rad) from the palm's front face to the target's centre. */
export function graspError(
  g: Gripper,
  p: GripperPose,
  target: { x: number; y: number },
): { d: number; phi: number } {
  const fx = p.x - (Math.cos(p.yaw) * g.finger.length) / 2;
  const fy = p.y - (Math.sin(p.yaw) * g.finger.length) / 2;
  const vx = target.x - fx;
  const vy = target.y - fy;
  return { d: Math.hypot(vx, vy), phi: wrapAngle(Math.atan2(vy, vx) - p.yaw) };
}
