/**
 * Multi-step replays of a run's executed controls: a window of `horizon` consecutive controls is
 * started from the observed state at its first one and driven by the robot's motion through all
 * of them, so an error the model makes in one control carries into the next as it would in a
 * plan. Horizon 1 is the one-step error `physics check` reports.
 */
import type { Scene } from '#contract/scene';
import { layoutForScene, type State } from '#contract/state';
import { observedVector, type LoggedPushes } from './executed-pushes';
import type { Replay, ReplayJob } from './prediction-error';
import { objectErrors, poseResidual, type ObjectError } from '#contract/pose-error';

export interface WindowPlan {
  job: ReplayJob;
  /** Index into the run's pushes of each control of the window. */
  pushes: number[];
  /** Index into the job's states of each control's end. */
  ends: number[];
}

/** The replay windows of a run: one starting at every executed control. */
export function replayWindows(run: LoggedPushes, horizon: number, latency: number): WindowPlan[] {
  const out: WindowPlan[] = [];
  for (let k = 0; k < run.pushes.length; k++) {
    const pushes: number[] = [];
    const ends: number[] = [];
    const controls: [number, number][] = [];
    for (let j = k; j < Math.min(run.pushes.length, k + horizon); j++) {
      controls.push(...run.pushes[j]!.pieces);
      pushes.push(j);
      ends.push(controls.length - 1);
    }
    out.push({
      job: { x: observedVector(run.states, run.pushes[k]!.start, latency), controls },
      pushes,
      ends,
    });
  }
  return out;
}

/** The error of one control's predicted end, in a window `offset` controls after its start. */
export interface ControlError {
  run: number;
  push: number;
  /** Controls since the window's observed start (0: one-step). */
  offset: number;
  objects: ObjectError[];
  /** Predicted minus observed, per object: x, y (m) and the wrapped yaw (rad). */
  residual: number[];
}

/** Replays every window of every run on the model scene; the error at each control's end. */
export async function replayErrors(
  replay: Replay,
  model: Scene,
  runs: readonly LoggedPushes[],
  o: { horizon: number; latency: number; signal?: AbortSignal },
): Promise<ControlError[]> {
  const plans = runs.map((run) => replayWindows(run, o.horizon, o.latency));
  const jobs = plans.flatMap((p) => p.map((w) => w.job));
  const results = await replay(model, jobs, o.signal);
  const layout = layoutForScene(model);
  const out: ControlError[] = [];
  let r = 0;
  plans.forEach((windows, run) => {
    const { pushes, states } = runs[run]!;
    for (const w of windows) {
      const simulated: State[] = results[r++]!;
      w.pushes.forEach((push, offset) => {
        const observed = observedVector(states, pushes[push]!.end, o.latency);
        const predicted = simulated[w.ends[offset]!]!;
        out.push({
          run,
          push,
          offset,
          objects: objectErrors(layout, predicted, observed),
          residual: poseResidual(layout, predicted, observed),
        });
      });
    }
  });
  return out;
}

/** p-quantile (0..1) by linear interpolation; NaN for no values. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = p * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (at - lo) * (sorted[hi]! - sorted[lo]!);
}
