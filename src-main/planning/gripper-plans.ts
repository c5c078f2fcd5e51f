/**
 * What the planners do with a gripper (grasping in clutter, WAFR 2018 Sec. 7.2):
 * - approach sequences, the gripper's counterpart of the straight pushes of Alg. 2: the grasp
 *   centre goes straight to the target's centre, the yaw turns the forward direction towards it
 *   as fast as allowed, and the fingers open as fast as allowed; whatever lies on the way is
 *   pushed aside. Spread over n controls, few controls make a fast approach and many a slow one.
 * - the closing reflex: once the target lies between the open fingers the run closes them,
 *   without planning (grasp.ts says when it is in the hand and when it is held).
 */
import type { ControlLimits } from '../contract/scene';
import { wrapAngle, type Control, type State } from '../contract/state';
import { inHand } from './grasp';
import type { TaskGeometry } from './outcome';

const clamp = (v: number, max: number): number => Math.max(-max, Math.min(max, v));

/**
 * n controls of dt seconds that take the gripper to the target: at `speed` (m/s) when given, else
 * at the speed that arrives at the end of the n-th control (capped by the limits either way);
 * once there it holds still.
 */
export function approachTarget(
  geometry: TaskGeometry,
  x: State,
  o: { n: number; dt: number; limits: ControlLimits; speed?: number },
): Control[] {
  const gripper = geometry.gripper;
  if (!gripper) throw new Error('an approach to grasp needs a gripper scene');
  const { maxSpeed, maxYawRate = 0, maxOpeningSpeed = 0 } = o.limits;
  const p = geometry.layout.gripperPose(x);
  const target = geometry.layout.sliderPose(x, geometry.goalIndex);
  const dx = target.x - p.x;
  const dy = target.y - p.y;
  const d = Math.hypot(dx, dy);
  const heading = d > 1e-9 ? Math.atan2(dy, dx) : p.yaw;
  const speed = Math.min(o.speed ?? d / (o.n * o.dt), maxSpeed);
  let { yaw, opening } = p;
  let travelled = 0;
  const out: Control[] = [];
  for (let t = 0; t < o.n; t++) {
    const v = d > 1e-9 ? Math.min(speed, (d - travelled) / o.dt) : 0;
    const yawRate = clamp(wrapAngle(heading - yaw) / o.dt, maxYawRate);
    const openRate = clamp((gripper.maxOpening - opening) / o.dt, maxOpeningSpeed);
    out.push(d > 1e-9 ? [(dx / d) * v, (dy / d) * v, yawRate, openRate] : [0, 0, yawRate, openRate]);
    travelled += v * o.dt;
    yaw = wrapAngle(yaw + yawRate * o.dt);
    opening += openRate * o.dt;
  }
  return out;
}

/**
 * The closing reflex (mpc-loop.ts `reflex`): when the goal object lies between the open fingers,
 * close them at the largest opening speed for one control duration (at the clutter scene's
 * 0.1 m/s the fingers close 0.1 m in a 1 s control, enough from the 0.14 m stroke onto the
 * narrowest WAFR object, 0.05 m).
 */
export function closeOnTarget(
  geometry: TaskGeometry,
  limits: ControlLimits,
  duration: number,
): (x: State) => { u: Control; duration: number } | null {
  const close: Control = [0, 0, 0, -(limits.maxOpeningSpeed ?? 0)];
  return (x) => {
    const hand = geometry.hand(x);
    return hand && inHand(hand) ? { u: close, duration } : null;
  };
}
