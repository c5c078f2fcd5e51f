/**
 * How far the fine model's prediction of one executed control is from what the lab then did: the
 * model started from the observed state at the control's start, driven by the robot's motion as
 * it was executed (piecewise-constant velocities), compared with the observed state once the arm
 * stood still. Errors per object: position (m, in the table plane) and yaw (rad, wrapped).
 *
 * `predictionErrorOfStep` is the one-step form a live run can call after each control with a
 * FineModel of its own; `replayJobs`/`Replay` are the batched form that check and fit run on the
 * fine workers.
 */
import type { Scene } from '#contract/scene';
import { PUSHER_SLOTS } from '#contract/end-effector/pusher';
import { StateLayout, type Control, type State } from '#contract/state';
import { objectErrors, type ObjectError } from '#contract/pose-error';
import { FineModel } from '#physics/fine-model';
import type { FinePool } from '../parareal/fine-pool';

/**
 * Length of one piece of an executed control's replay (s): the robot's velocity is held constant
 * over it. Each piece starts from a reset MuJoCo state; a tenth of a second keeps the arm's
 * acceleration ramps in the replay while the resets (each lands an object exactly at rest height)
 * stay few: at 20 ms they alone moved a replay of the world itself by up to 2.5 mm per control.
 */
export const PIECE = 0.1;

/** Anything that steps the fine model: FineModel itself, or a model of another scene's physics. */
export interface StepSimulator {
  step(x: State, u: Control, dt: number): State;
}

export interface StepReplay {
  /** The observed state when the control started (at rest). */
  start: ArrayLike<number>;
  /** The robot's table-frame velocity over each `piece` s from the start. */
  pieces: readonly (readonly [number, number])[];
  /** The observed state once the arm stood still. */
  end: ArrayLike<number>;
  /** The planner's own prediction of the end, when known. */
  predictedEnd?: ArrayLike<number> | null;
  /** Length of a piece, s (default PIECE); a whole number of the model's time steps. */
  piece?: number;
}

export interface StepError {
  /** The fine model's prediction against the observed end. */
  model: ObjectError[];
  /** The planner's prediction against the observed end; null when it was not given. */
  planner: ObjectError[] | null;
  /** The fine model's predicted end state. */
  predicted: State;
}

/**
 * The prediction error of one executed control, computed at once with `model` (a FineModel of the
 * scene, or of fitted physics): what a live run logs after each step.
 */
export function predictionErrorOfStep(
  model: StepSimulator,
  sliderIds: readonly string[],
  step: StepReplay,
): StepError {
  const dt = step.piece ?? PIECE;
  const layout = new StateLayout(sliderIds, PUSHER_SLOTS);
  let x: State = Float64Array.from(step.start);
  for (const u of step.pieces) x = model.step(x, [u[0], u[1]], dt);
  return {
    model: objectErrors(layout, x, step.end),
    planner: step.predictedEnd ? objectErrors(layout, step.predictedEnd, step.end) : null,
    predicted: x,
  };
}

/** A replay for the workers: from x, each control held for PIECE; the states after each. */
export interface ReplayJob {
  x: number[];
  controls: [number, number][];
}

/** Runs replay jobs on a scene's fine model; the states after every control of each job. */
export type Replay = (scene: Scene, jobs: readonly ReplayJob[], signal?: AbortSignal) => Promise<State[][]>;

/** Replays on the fine workers, one job per window (they run in parallel). */
export function poolReplay(pool: FinePool): Replay {
  return async (scene, jobs, signal) => {
    const sceneKey = pool.registerScene(scene);
    const results = await Promise.all(
      jobs.map((j) =>
        pool.run({ sceneKey, x: Float64Array.from(j.x), controls: j.controls, dt: PIECE }, signal),
      ),
    );
    return results.map((r) => r.states.map((s) => Float64Array.from(s)));
  };
}

/** Replays in this process, one model per scene kept while the replay lives (tests, small checks). */
export function inProcessReplay(): Replay & { dispose(): void } {
  const models = new Map<string, FineModel>();
  const replay = async (scene: Scene, jobs: readonly ReplayJob[]): Promise<State[][]> => {
    const key = JSON.stringify(scene);
    let model = models.get(key);
    if (!model) {
      model = await FineModel.create(scene);
      models.set(key, model);
    }
    const m = model;
    return jobs.map((j) => {
      let x: State = Float64Array.from(j.x);
      return j.controls.map((u) => (x = m.step(x, u, PIECE)));
    });
  };
  return Object.assign(replay, {
    dispose: () => {
      for (const m of models.values()) m.dispose();
      models.clear();
    },
  });
}
