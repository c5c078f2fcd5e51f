/**
 * The task a run plans with, derived in one place for the console, `parapush run` and
 * experiments: the task file's task (a scene's shipped one, or the default task file for a scene
 * without one), with what the run changes laid over it: the operator's planner settings, another
 * planner kind, the loop mode, the fine model the planner predicts with, the WAFR noise level.
 * Every weight and default comes from a task file; nothing here invents one.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { problemsOf } from '#contract/scene-file';
import type { LoopMode, PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { defaultTaskFile } from '../common/paths';
import { readStoredJson } from '../common/stored-json';
import { loadTaskFile, taskPlannerSchema, taskSchema, TaskFileError, type Task } from './task-file';

/** A fine model as typed by a person (an integrator's name, a timestep in s), unchecked. */
export interface PredictionOverride {
  integrator: string;
  timestep: number;
}

/** What a run changes of its task file's task; each is optional. */
export interface TaskOverrides {
  /**
   * The operator's planner settings (the console): they replace the fields the task's planner
   * shares with them, and cap its initial speed at their pusher speed.
   */
  settings?: PlannerSettings;
  /** Another planner kind (`parapush run --planner`, an experiment's MODEL/PLANNER). */
  planner?: Task['planner']['kind'];
  /** Another loop mode (`parapush run --async`, an experiment's loop mode). */
  loopMode?: LoopMode;
  /** The fine model the planner predicts with (`parapush run --prediction`), checked against the planner. */
  prediction?: PredictionOverride;
  /** The WAFR noise level b of an action-proportional noise model (an experiment's noise slope). */
  noiseSlope?: number;
}

/** An override the task cannot take; the message names the field and why. */
export class TaskOverrideError extends Error {
  override name = 'TaskOverrideError';
}

/** The task of a run: `task` with `overrides` laid over it, in the order the fields are listed. */
export function taskForRun(task: Task, overrides: TaskOverrides = {}): Task {
  const o = overrides;
  let planner = task.planner;
  if (o.settings) planner = withSettings(planner, o.settings);
  if (o.planner) planner = { ...planner, kind: o.planner };
  if (o.loopMode) planner = { ...planner, loopMode: o.loopMode };
  if (o.prediction) planner = withPrediction(planner, o.prediction);
  const execution = o.noiseSlope === undefined ? task.execution : withNoiseSlope(task, o.noiseSlope);
  return planner === task.planner && execution === task.execution ? task : { ...task, planner, execution };
}

/** The planner with the operator's settings in place of the file's. */
function withSettings(planner: Task['planner'], settings: PlannerSettings): Task['planner'] {
  // Fields the settings and the task file share carry the same name in both.
  const { horizon, controlDuration, maxExecutedActions, loopMode } = settings;
  return {
    ...planner,
    kind: settings.planner,
    horizon,
    controlDuration,
    maxExecutedActions,
    loopMode,
    prediction: { ...settings.prediction },
    // The straight-line initial guess must respect the operator's speed limit too.
    initialSpeed: Math.min(planner.initialSpeed, settings.maxPusherSpeed),
    optimizer: {
      ...planner.optimizer,
      rollouts: settings.rollouts,
      explorationVariance: settings.explorationVariance,
    },
  };
}

/** The planner predicting with `prediction`, which must fit it (its timestep divides a control). */
function withPrediction(planner: Task['planner'], prediction: PredictionOverride): Task['planner'] {
  const r = taskPlannerSchema.safeParse({ ...planner, prediction });
  if (r.success) return r.data;
  const problems = problemsOf(r.error).map((p) => {
    const field = p.path.replace(/^prediction\.?/, '') || 'prediction';
    const got = field === 'timestep' ? ` (got ${prediction.timestep * 1000} ms)` : '';
    return `${field}: ${p.message}${got}`;
  });
  throw new TaskOverrideError(`prediction: ${problems.join('; ')}`);
}

/**
 * The task's execution with its action-proportional slope replaced by b (execution-world.ts): the
 * level WAFR 2018 Fig. 5 varies (none, low, medium, high = 0, 0.05, 0.075, 0.1). The task's noise
 * model is the one place both the execution world and the planner's own noise (TAMPC's and
 * UAMPC's stochastic samples, task-run.ts poolSampler) read it from, so replacing it changes both.
 */
function withNoiseSlope(task: Task, b: number): Task['execution'] {
  const noise = task.execution.noise;
  if (noise.kind !== 'action-proportional')
    throw new TaskOverrideError(
      `task ${task.name} has ${noise.kind} execution noise, not action-proportional: a noise slope applies to the WAFR tasks only`,
    );
  if (!(b >= 0) || !Number.isFinite(b))
    throw new TaskOverrideError(`noise slope: expected a number >= 0, got ${b}`);
  return { ...task.execution, noise: { ...noise, slope: b } };
}

/** What a shipped task's id looks like (its file name without .json). */
const TASK_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The shipped task file for a scene name, or null. The name is free text from a scene file,
 * possibly imported over the console API, so it is only ever compared with the ids of the files
 * that are there: a name like '../../x' never becomes a path.
 */
export function shippedTaskFile(tasksDir: string, sceneName: string): string | null {
  if (!TASK_ID.test(sceneName)) return null;
  const ids = readdirSync(tasksDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name.slice(0, -'.json'.length));
  return ids.includes(sceneName) ? path.join(tasksDir, `${sceneName}.json`) : null;
}

/**
 * The task file's task of a scene: its shipped task file, else the default task file
 * (resources/default-task.json) for this scene, without its obstacle terms when the scene has no
 * obstacles.
 */
export function baseTask(scene: Scene, tasksDir: string, defaultFile = defaultTaskFile): Task {
  const file = shippedTaskFile(tasksDir, scene.name);
  if (file) return loadTaskFile(file).task;
  const task = readStoredJson(defaultFile, taskSchema, { what: 'task', error: TaskFileError });
  return {
    ...task,
    name: `${scene.name} (${task.name})`,
    scene: `${scene.name}.json`,
    costs: task.costs.filter((c) => scene.obstacles.length > 0 || !c.term.startsWith('obstacle-')),
  };
}
