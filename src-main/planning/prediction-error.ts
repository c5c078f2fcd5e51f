/**
 * How far the planner's prediction of an executed control ended from what the table then did: the
 * state its plan predicted at the end of the control sent, against the state observed there. It
 * costs nothing (both are at hand when the control ends: no simulation), so every live run logs
 * it per step; `parapush physics check` re-simulates from the logs for the fine model's own error.
 */
import { objectErrors, type ObjectError } from '#contract/pose-error';
import type { State, StateLayout } from '#contract/state';

/** The prediction error of one executed control. */
export interface PredictionError {
  /** The step whose first control was executed (0-based). */
  step: number;
  objects: ObjectError[];
  /** The largest object position error (m) and yaw error (rad). */
  position: number;
  yaw: number;
}

export function predictionError(
  L: StateLayout,
  step: number,
  predicted: State,
  observed: State,
): PredictionError {
  const objects = objectErrors(L, predicted, observed);
  return {
    step,
    objects,
    position: Math.max(0, ...objects.map((e) => e.position)),
    yaw: Math.max(0, ...objects.map((e) => e.yaw)),
  };
}
