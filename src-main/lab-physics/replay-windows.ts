/**
 * Multi-step replays of a run's executed controls: a window of `horizon` consecutive controls is
 * started from the observed state at its first one and driven by the robot's motion through all
 * of them, so an error the model makes in one control carries into the next as it would in a
 * plan. Horizon 1 is the one-step error `physics check` reports.
 */
import type { Scene } from '#contract/scene';
import { layoutForScene, type State } from '#contract/state';
import { observedEnd, observedStart, type LoggedPushes } from './executed-pushes';
import { PIECE, type Replay, type ReplayJob } from './prediction-error';
import { endEffectorOf } from '#contract/end-effector/registry';
import { footprintOf, footprintReach } from '#physics/geometry2d';
import { objectErrors, poseResidual, type ObjectError } from '#contract/pose-error';

export interface WindowPlan {
  job: ReplayJob;
  /** Index into the run's pushes of each control of the window. */
  pushes: number[];
  /** Index into the job's states of each control's end. */
  ends: number[];
}

/**
 * m beyond touching within which the pusher's sampled path counts as reaching an object: more than
 * it travels between two samples (a piece at the arm's 0.25 m/s is 25 mm; the path is sampled at
 * every piece's start, middle and end).
 */
const CONTACT_MARGIN = 0.015;

/**
 * Whether the pusher, moved by `controls` from the observed state x, comes within touching distance
 * of an object where it stood at x. A window that never does leaves every object where it was in
 * any physics: its residuals are the cameras' noise alone, and only dilute a fit's objective.
 */
export function reachesAnObject(
  scene: Scene,
  x: readonly number[],
  controls: readonly [number, number][],
): boolean {
  const layout = layoutForScene(scene);
  const radius = endEffectorOf(scene).discRadius ?? 0;
  const objects = scene.sliders.map((s, i) => ({
    ...layout.sliderPose(x, i),
    reach: footprintReach(footprintOf(s.shape)) + radius + CONTACT_MARGIN,
  }));
  let [px, py] = layout.pusherPosition(x);
  const near = (): boolean => objects.some((o) => Math.hypot(px - o.x, py - o.y) <= o.reach);
  if (near()) return true;
  for (const [vx, vy] of controls) {
    for (let h = 0; h < 2; h++) {
      px += (vx * PIECE) / 2;
      py += (vy * PIECE) / 2;
      if (near()) return true;
    }
  }
  return false;
}

/**
 * The replay windows of a run: one starting at every executed control (with `contactOnly`, only
 * those in which the pusher reaches an object).
 */
export function replayWindows(
  run: LoggedPushes,
  horizon: number,
  latency: number,
  contactOnly = false,
): WindowPlan[] {
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
    const x = observedStart(run, k, latency);
    if (contactOnly && !reachesAnObject(run.scene, x, controls)) continue;
    out.push({
      job: { x, controls },
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
  o: { horizon: number; latency: number; contactOnly?: boolean; signal?: AbortSignal },
): Promise<ControlError[]> {
  const plans = runs.map((run) => replayWindows(run, o.horizon, o.latency, o.contactOnly));
  const jobs = plans.flatMap((p) => p.map((w) => w.job));
  const results = await replay(model, jobs, o.signal);
  const layout = layoutForScene(model);
  const out: ControlError[] = [];
  let r = 0;
  plans.forEach((windows, run) => {
    const logged = runs[run]!;
    for (const w of windows) {
      const simulated: State[] = results[r++]!;
      w.pushes.forEach((push, offset) => {
        const observed = observedEnd(logged, push, o.latency);
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
