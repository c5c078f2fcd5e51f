/**
 * The robot's control space: what a control vector may hold and how big it is. A control has one
 * velocity per robot DOF (contract/state.ts): (vx, vy) for the pusher, (vx, vy, yaw rate, opening
 * speed) for the gripper.
 */
import type { ControlLimits } from '#contract/end-effector/end-effector';
import type { Control } from '#contract/state';

/**
 * The control clamped to the robot's limits: the translational speed to maxSpeed (direction kept),
 * the gripper's yaw rate and opening speed each to its own limit.
 */
export function clampControl(u: Control, limits: ControlLimits): Control {
  const s = Math.hypot(u[0]!, u[1]!);
  const xy =
    s > limits.maxSpeed ? [(u[0]! * limits.maxSpeed) / s, (u[1]! * limits.maxSpeed) / s] : [u[0]!, u[1]!];
  if (u.length === 2) return xy;
  const clamp = (v: number, max: number | undefined): number => {
    if (max === undefined)
      throw new Error('a 4-input control needs the gripper limits maxYawRate and maxOpeningSpeed');
    return Math.max(-max, Math.min(max, v));
  };
  return [...xy, clamp(u[2]!, limits.maxYawRate), clamp(u[3]!, limits.maxOpeningSpeed)];
}

/**
 * |u| of WAFR 2018's noise (Eq. 1, zeta(u) proportional to |u|), in m/s: the speed of a point
 * moving with all the tool's inputs at once, each as fast as it moves a point of the tool
 * (`speedScales`, its tool's: contract/end-effector): the pusher's speed; for the gripper the
 * translation, the yaw rate times its reach (the farthest point from the grasp centre) and half
 * the opening speed (each finger's).
 */
export function controlMagnitude(u: Control, speedScales: readonly number[] = [1, 1]): number {
  if (speedScales.length !== u.length)
    throw new Error(`a control of ${u.length} entries, speed scales for ${speedScales.length}`);
  return Math.hypot(...u.map((v, j) => v * speedScales[j]!));
}

/** The control that holds the robot still. */
export function restControl(dimension: number): Control {
  return new Array<number>(dimension).fill(0);
}
