/**
 * Tasks cut down so that an experiment runs in seconds on the coarse model, for the tests of the
 * runner, the sweep and the CLI, and run records made by hand for the tests of their reports.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRunSpec } from '../../src-main/experiments/run-spec';
import type { RunRecord } from '../../src-main/experiments/run-record';
import type { Task } from '../../src-main/planning/task-file';
import { repoRoot } from './scenes';

/**
 * A shipped task with `executedActions` executed actions, 3 rollouts per optimization and TAMPC
 * at 2 candidates of 2 samples and at most 2 actions (`tampc` changes more of TAMPC's settings).
 */
export function tinyTask(
  task: Task,
  {
    executedActions = 2,
    tampc = {},
  }: { executedActions?: number; tampc?: Partial<Task['planner']['tampc']> } = {},
): Task {
  const tiny = structuredClone(task);
  tiny.planner.maxExecutedActions = executedActions;
  tiny.planner.optimizer.rollouts = 3;
  tiny.planner.tampc = { ...tiny.planner.tampc, candidates: 2, samples: 2, maxActions: 2, ...tampc };
  return tiny;
}

/** The short lab scene the CLI tests push on (one slider, a near goal). */
export const shortScene = path.join(repoRoot, 'test/fixtures/lab-short-scene.json');

/**
 * A task file DIR/NAME.json for the CLI: one straight push of at most two half-second actions
 * towards the short scene's goal with the given execution noise.
 */
export function writeTinyTaskFile(dir: string, name: string, noise: object): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name,
      scene: shortScene,
      costs: [{ term: 'goal-distance', weight: 100 }],
      planner: {
        horizon: 1,
        controlDuration: 0.5,
        initialSpeed: 0.05,
        optimizer: { rollouts: 2, maxIterations: 1 },
        maxExecutedActions: 2,
      },
      execution: { noise },
      sampling: { kind: 'jitter', halfRange: 0.005 },
    }),
  );
  return file;
}

/**
 * A run's record as the runner stores it, with no states or controls: 3 actions, planning times
 * 0.5 and 1.5 s, the run spec's planner (MPC when it names none) and, for a failure, a collision.
 */
export function runRecord(
  model: string,
  scene: number,
  outcome: 'success' | 'failure',
  taskTime: number,
  task = 't',
): RunRecord {
  return {
    task,
    model,
    planner: parseRunSpec(model).planner ?? 'mpc',
    scene,
    seed: 1,
    workers: 1,
    controlDuration: 1,
    wallTime: 1,
    summary: {
      outcome,
      failure: outcome === 'failure' ? 'obstacle-collision' : null,
      detail: null,
      actions: 3,
      taskTime,
      planningTimes: [0.5, 1.5],
      controls: [],
      states: [],
    },
  };
}
