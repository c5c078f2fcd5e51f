/**
 * What-if re-planning for the Sessions view: one-step planners built exactly as a console run
 * builds its planner (task file + the operator's settings, the chosen prediction model), on a
 * worker pool of their own that lives as long as the planner.
 */
import type { PlannerSettings } from '../contract/planner-settings';
import type { Scene } from '../contract/scene';
import { FinePool } from '../parareal/fine-pool';
import type { SpawnWorker } from '../parareal/worker-transport';
import { createTaskRun } from '../planning/task-run';
import type { WhatIfPlannerFactory } from '../session/what-if';
import { modelForRun, sceneForRun, taskForRun } from './task-from-settings';

export function whatIfPlanners(o: {
  tasksDir: string;
  workers: number;
  spawn?: SpawnWorker;
  seed?: number;
}): WhatIfPlannerFactory {
  return {
    workers: o.workers,
    create: async (original: Scene, settings: PlannerSettings) => {
      const scene = sceneForRun(original, settings);
      const task = taskForRun(scene, settings, o.tasksDir);
      const model = modelForRun(settings);
      const pool = new FinePool({ workers: o.workers, ...(o.spawn ? { spawn: o.spawn } : {}) });
      try {
        const run = await createTaskRun({
          task,
          scene,
          pool,
          model,
          coarse: settings.coarseModel,
          seed: o.seed ?? 1,
        });
        return {
          planner: run.planner,
          dispose: () => {
            run.dispose();
            void pool.close();
          },
        };
      } catch (err) {
        await pool.close();
        throw err;
      }
    },
  };
}
