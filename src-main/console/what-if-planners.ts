/**
 * What-if re-planning for the Sessions view: one-step planners built exactly as a console run
 * builds its planner (task file + the operator's settings, the chosen prediction model), on the
 * console's fine workers (shared with its runs, kept warm between them).
 */
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import type { FinePool } from '../parareal/fine-pool';
import { createTaskRun } from '../planning/task-run';
import type { WhatIfPlannerFactory } from '../session/what-if';
import { baseTask, taskForRun } from '../planning/task-for-run';
import { modelForRun, sceneForRun } from './task-from-settings';

export function whatIfPlanners(o: {
  tasksDir: string;
  workers: number;
  /** The console's fine workers (started on first use). */
  pool(): FinePool;
  seed?: number;
}): WhatIfPlannerFactory {
  return {
    workers: o.workers,
    create: async (original: Scene, settings: PlannerSettings) => {
      const scene = sceneForRun(original, settings);
      const task = taskForRun(baseTask(scene, o.tasksDir), { settings });
      const model = modelForRun(settings);
      const run = await createTaskRun({
        task,
        scene,
        pool: o.pool(),
        model,
        coarse: settings.coarseModel,
        seed: o.seed ?? 1,
      });
      return { planner: run.planner, dispose: () => run.dispose() };
    },
  };
}
