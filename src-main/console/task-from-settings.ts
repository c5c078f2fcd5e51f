/**
 * What a console run plans with: the scene's task file (resources/tasks/<scene name>.json) when
 * there is one, else a default task (goal distance plus obstacle costs), with the operator's
 * planner settings laid over it; and the prediction model the settings choose.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import type { Tolerance } from '../parareal/parareal';
import type { ModelRequest } from '../parareal/model-choice';
import { loadTaskFile, parseTask, type Task } from '../planning/task-file';

/** Costs of the default task (weights of the ISRR 2019 task): reach the goal, keep clear of obstacles. */
function defaultTask(scene: Scene): Task {
  return parseTask({
    name: `${scene.name} (console default)`,
    scene: `${scene.name}.json`,
    costs: [
      { term: 'goal-distance', weight: 100 },
      ...(scene.obstacles.length > 0
        ? [
            { term: 'obstacle-proximity', sliderWeight: 0.01, pusherWeight: 0.002 },
            { term: 'obstacle-clearance', weight: 50, sliderMargin: 0.03, pusherMargin: 0.01 },
          ]
        : []),
      { term: 'control-smoothness', weight: 10 },
    ],
    // Only simulated experiments use these two; a lab run executes on the lab.
    execution: { noise: { kind: 'constant', variance: 0 } },
    sampling: { kind: 'jitter', halfRange: 0.02 },
  });
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

/** The base task of a scene: its shipped task file, or the default. */
export function baseTask(scene: Scene, tasksDir: string): Task {
  const file = shippedTaskFile(tasksDir, scene.name);
  return file ? loadTaskFile(file).task : defaultTask(scene);
}

/** The task with the operator's planner settings in place of the file's. */
export function taskForRun(scene: Scene, settings: PlannerSettings, tasksDir: string): Task {
  const task = baseTask(scene, tasksDir);
  // Fields the settings and the task file share carry the same name in both.
  const { horizon, controlDuration, maxExecutedActions, loopMode } = settings;
  return {
    ...task,
    planner: {
      ...task.planner,
      kind: settings.planner,
      horizon,
      controlDuration,
      maxExecutedActions,
      loopMode,
      prediction: { ...settings.prediction },
      // The straight-line initial guess must respect the operator's speed limit too.
      initialSpeed: Math.min(task.planner.initialSpeed, settings.maxPusherSpeed),
      optimizer: {
        ...task.planner.optimizer,
        rollouts: settings.rollouts,
        explorationVariance: settings.explorationVariance,
      },
    },
  };
}

/**
 * The prediction model of the settings, or `auto` (resolved from the worker count when the run
 * starts); throws (for the operator) when the settings do not fit together.
 */
export function modelForRun(settings: PlannerSettings): ModelRequest {
  if (settings.predictionModel === 'coarse') return { kind: 'coarse' };
  if (settings.predictionModel === 'fine') return { kind: 'fine' };
  if (settings.predictionModel === 'auto') return { kind: 'auto' };
  if (settings.horizon % settings.slices !== 0)
    throw new Error(
      `the horizon (${settings.horizon} controls) does not divide into ${settings.slices} Parareal slices`,
    );
  const p = settings.parareal;
  const tolerance: Tolerance | null =
    p.mode === 'adaptive' ? { translation: p.translationTolerance, rotation: p.rotationTolerance } : null;
  return {
    kind: 'parareal',
    iterations: p.mode === 'adaptive' ? p.maxIterations : p.iterations,
    tolerance,
    controlsPerSlice: settings.horizon / settings.slices,
  };
}

/**
 * The scene as the run sees it: its pusher speed limit lowered to the operator's when that is
 * stricter (the planner samples within it and the supervisor enforces it).
 */
export function sceneForRun(scene: Scene, settings: PlannerSettings): Scene {
  const limit = Math.min(scene.limits.maxPusherSpeed, settings.maxPusherSpeed);
  return limit === scene.limits.maxPusherSpeed
    ? scene
    : { ...scene, limits: { ...scene.limits, maxPusherSpeed: limit } };
}
