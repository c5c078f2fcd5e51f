/**
 * A run without a lab (an experiment's run in the simulated execution world) recorded as every
 * other run is: through the run's one recorder (run-recorder.ts), fed by the run's reporter
 * (run-report.ts), so its session log fills the channels a console or CLI run's events fill (run
 * status, planner steps, measured state, event log, outcome, the Foxglove views of them). It has
 * no lab streams to record: no motion capture, robot or supervisor.
 *
 * Log times are this machine's clock while the run was computed (planning and simulating); the
 * run's own clock, which counts simulated execution, is in each step's and state's `time`.
 */
import type { PredictionError } from '../planning/prediction-error';
import type { ConsoleEvent } from '#contract/console-api';
import { type PlannerStep } from '#contract/planner-events';
import type { RunSummary } from '#contract/planner-events';
import type { CoarseModelKind } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import type { ModelRequest } from '../parareal/model-choice';
import { predictionModelSpec } from '../parareal/predictor';
import { planningModel } from '../planning/task-run';
import type { Task } from '../planning/task-file';
import { RunOwner } from './run-owner';
import { plannerSettingsOf, RunRecorder } from './run-recorder';
import { RunReporter } from './run-report';

export interface RecordedRunOptions {
  /** The sessions folder the log goes into. */
  dir: string;
  /** Ends the log's file name (which model, which scene). */
  label: string;
  scene: Scene;
  task: Task;
  model: ModelRequest;
  coarse: CoarseModelKind;
  /** Fine workers the run plans on (what `auto` chooses for). */
  workers: number;
  /** Runs the MPC loop, telling `onStep` of every executed step and `onPredictionError` of its prediction's error. */
  run(
    onStep: (step: PlannerStep) => void,
    onPredictionError: (e: PredictionError) => void,
  ): Promise<RunSummary>;
}

/** Runs `o.run` with its session log; returns its summary and the log's file. */
export async function recordedRun(o: RecordedRunOptions): Promise<{ summary: RunSummary; file: string }> {
  const recorder = await RunRecorder.start({
    dir: o.dir,
    label: o.label,
    origin: 'experiment',
    mode: 'dry',
    scene: o.scene,
    settings: plannerSettingsOf(o.task, o.scene, o.model, o.coarse),
  });
  // The run's owner, as every run has: its status, clock and log (no lab, so no fine workers of its own).
  const owner = new RunOwner();
  owner.begin('dry', recorder);
  const { model, reason } = planningModel(o.task, o.scene, o.model, o.workers);
  recorder.model({ requested: o.model.kind, model: predictionModelSpec(model), workers: o.workers, reason });
  const report = new RunReporter(owner, { realTime: false });
  const measured = (time: number, sliderIds: string[], state: number[]): ConsoleEvent => ({
    type: 'state',
    time,
    sliderIds,
    state,
  });
  try {
    report.status({ event: { type: 'run-started' }, safety: 'safe' });
    let last: PlannerStep | undefined;
    const summary = await o.run(
      (step) => {
        last = step;
        report.emit(measured(step.time, step.sliderIds, step.start));
        report.step(step);
      },
      (e) => recorder.predictionError(e),
    );
    const end = summary.states.at(-1);
    if (last && end) report.emit(measured(summary.taskTime, last.sliderIds, end));
    report.ended({
      end: { cause: 'task', result: summary.outcome },
      reason: summary.detail ?? summary.outcome,
      actions: summary.actions,
    });
    return { summary, file: recorder.file };
  } catch (err) {
    report.failed(err as Error);
    throw err;
  } finally {
    owner.release();
    await recorder.close();
  }
}
