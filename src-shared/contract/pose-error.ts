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

/** Predicted minus observed pose of each object: x, y (m) and the wrapped yaw (rad), signed. */
function poseDifferences(
  L: StateLayout,
  predicted: ArrayLike<number>,
  observed: ArrayLike<number>,
): { id: string; x: number; y: number; yaw: number }[] {
  return L.sliderIds.map((id, i) => {
    const p = L.sliderPose(predicted, i);
    const o = L.sliderPose(observed, i);
    return { id, x: p.x - o.x, y: p.y - o.y, yaw: wrapAngle(p.theta - o.theta) };
  });
}

/** Each object's error between a predicted and an observed state of the same layout. */
export function objectErrors(
  L: StateLayout,
  predicted: ArrayLike<number>,
  observed: ArrayLike<number>,
): ObjectError[] {
  return poseDifferences(L, predicted, observed).map((d) => ({
    id: d.id,
    position: Math.hypot(d.x, d.y),
    yaw: Math.abs(d.yaw),
  }));
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
  return poseDifferences(L, predicted, observed).flatMap((d) => [d.x, d.y, d.yaw]);
}
