/**
 * How far a predicted state's objects are from an observed state's: the one measure of a
 * prediction's error, used by the live runs' per-step log (planning/prediction-error.ts) and by the
 * replays of `parapush physics check` and `fit` (lab-physics/).
 */
import { wrapAngle, type StateLayout } from './state';

/** One object's error: position (m) and yaw (rad, absolute, wrapped). */
export interface ObjectError {
  id: string;
  position: number;
  yaw: number;
}

/** Each object's error between a predicted and an observed state of the same layout. */
export function objectErrors(
  L: StateLayout,
  predicted: ArrayLike<number>,
  observed: ArrayLike<number>,
): ObjectError[] {
  return L.sliderIds.map((id, i) => {
    const p = L.sliderPose(predicted, i);
    const o = L.sliderPose(observed, i);
    return { id, position: Math.hypot(p.x - o.x, p.y - o.y), yaw: Math.abs(wrapAngle(p.theta - o.theta)) };
  });
}

/**
 * Predicted minus observed pose of each object, signed: x, y (m) and the wrapped yaw (rad), three
 * numbers an object (a fit's residuals).
 */
export function poseResidual(
  L: StateLayout,
  predicted: ArrayLike<number>,
  observed: ArrayLike<number>,
): number[] {
  return L.sliderIds.flatMap((_, i) => {
    const p = L.sliderPose(predicted, i);
    const o = L.sliderPose(observed, i);
    return [p.x - o.x, p.y - o.y, wrapAngle(p.theta - o.theta)];
  });
}
