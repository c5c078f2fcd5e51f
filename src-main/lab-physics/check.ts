/**
 * `physics check`: the fine model's one-step prediction error over every executed control of
 * some session logs, per object and step, with p50/p95 per run and over all runs, beside the
 * planner's own prediction error where the log holds its predictions.
 */
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { stateVector } from '../session/named-state';
import { observedEnd, PhysicsLogError, type LoggedPushes } from './executed-pushes';
import type { Replay } from './prediction-error';
import { objectErrors, type ObjectError } from '#contract/pose-error';
import { quantile, replayErrors } from './replay-windows';

export interface ErrorSummary {
  /** m: median, 95th percentile and root mean square (the tail weighs in it as in a fit's objective). */
  position: { p50: number; p95: number; rms: number };
  /** rad */
  yaw: { p50: number; p95: number; rms: number };
  /** Object-steps summarised. */
  count: number;
}

export interface CheckedStep {
  /** 0-based control of the run. */
  push: number;
  /** s since the log's first message. */
  start: number;
  model: ObjectError[];
  planner: ObjectError[] | null;
}

export interface CheckedRun {
  file: string;
  scene: string;
  steps: CheckedStep[];
  model: ErrorSummary;
  planner: ErrorSummary | null;
}

export interface CheckReport {
  /** The scene whose physics predicted (the logs' own, or --scene). */
  model: string;
  runs: CheckedRun[];
  modelAll: ErrorSummary;
  plannerAll: ErrorSummary | null;
}

export function summarise(errors: readonly ObjectError[]): ErrorSummary {
  const position = errors.map((e) => e.position);
  const yaw = errors.map((e) => e.yaw);
  const rms = (xs: readonly number[]): number =>
    xs.length === 0 ? NaN : Math.sqrt(xs.reduce((s, x) => s + x * x, 0) / xs.length);
  return {
    position: { p50: quantile(position, 0.5), p95: quantile(position, 0.95), rms: rms(position) },
    yaw: { p50: quantile(yaw, 0.5), p95: quantile(yaw, 0.95), rms: rms(yaw) },
    count: errors.length,
  };
}

/**
 * The model scene must be the log's scene up to its physics: the same objects, shapes and
 * robot. Throws naming the difference.
 */
export function requireSameLayout(run: LoggedPushes, model: Scene, modelFile: string): void {
  const logged = run.scene;
  const describe = (s: Scene): string =>
    s.sliders.map((b) => `${b.id} (${b.shape.kind})`).join(', ') || 'no objects';
  const sameObjects =
    logged.sliders.length === model.sliders.length &&
    logged.sliders.every((b, i) => {
      const m = model.sliders[i]!;
      return b.id === m.id && JSON.stringify(b.shape) === JSON.stringify(m.shape);
    });
  if (!sameObjects)
    throw new PhysicsLogError(
      `${run.file} was recorded on scene "${logged.name}" with objects ${describe(logged)}; ` +
        `${modelFile} ("${model.name}") has ${describe(model)}: a log can only be checked against a scene of the same objects`,
    );
  if (JSON.stringify(logged.pusher?.radius) !== JSON.stringify(model.pusher?.radius))
    throw new PhysicsLogError(
      `${run.file} was recorded with a pusher of radius ${logged.pusher?.radius} m, ${modelFile} has ${model.pusher?.radius} m`,
    );
}

/**
 * Checks the runs against `model` (each run's own scene when null). `latency`: how late motion
 * capture is (s), from a physics profile; 0 without one.
 */
export async function physicsCheck(
  replay: Replay,
  runs: readonly LoggedPushes[],
  o: { model: { scene: Scene; file: string } | null; latency?: number; signal?: AbortSignal },
): Promise<CheckReport> {
  const latency = o.latency ?? 0;
  const checked: CheckedRun[] = [];
  for (const run of runs) {
    const scene = o.model?.scene ?? run.scene;
    if (o.model) requireSameLayout(run, o.model.scene, o.model.file);
    const errors = await replayErrors(replay, scene, [run], { horizon: 1, latency, signal: o.signal });
    const layout = layoutForScene(scene);
    const steps: CheckedStep[] = run.pushes.map((p) => {
      const end = observedEnd(run, p.index, latency);
      return {
        push: p.index,
        start: p.start,
        model: errors.find((e) => e.push === p.index)!.objects,
        planner: p.predictedEnd ? objectErrors(layout, stateVector(p.predictedEnd), end) : null,
      };
    });
    const plannerErrors = steps.flatMap((s) => s.planner ?? []);
    checked.push({
      file: run.file,
      scene: run.scene.name,
      steps,
      model: summarise(steps.flatMap((s) => s.model)),
      planner: plannerErrors.length > 0 ? summarise(plannerErrors) : null,
    });
  }
  const plannerErrorsAll = checked.flatMap((r) => r.steps.flatMap((s) => s.planner ?? []));
  return {
    model: o.model ? `${o.model.scene.name} (${o.model.file})` : 'each log’s own scene',
    runs: checked,
    modelAll: summarise(checked.flatMap((r) => r.steps.flatMap((s) => s.model))),
    plannerAll: plannerErrorsAll.length > 0 ? summarise(plannerErrorsAll) : null,
  };
}
