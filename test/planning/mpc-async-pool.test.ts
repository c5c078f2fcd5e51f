/**
 * Asynchronous TAMPC as experiments, `parapush run` and the console build it (task-run.ts
 * runTaskOn: the planner on the fine-model worker pool, the simulated execution world as the
 * plant): the plan for step 1 is made during control 0 and its rest, from the state the plan
 * predicts after both, the rest predicted by the fine model on the pool.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlannerStep } from '#contract/planner-events';
import { FineModel } from '#physics/fine-model';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { deriveSeed } from '../../src-main/common/rng';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { ExecutionWorld } from '../../src-main/planning/execution-world';
import { loadTaskFile, type Task } from '../../src-main/planning/task-file';
import { runTaskOn } from '../../src-main/planning/task-run';
import { repoRoot } from '../helpers/scenes';

const pool = new FinePool({ workers: 2 });
afterAll(() => pool.close());

describe('asynchronous TAMPC on the worker pool', () => {
  it("plans step 1 during control 0 from the fine model's prediction of its end and rest", async () => {
    const loaded = loadTaskFile(path.join(repoRoot, 'resources/tasks/wafr-high-accuracy.json'));
    const p = loaded.task.planner;
    // Small, so the test is quick: 2 candidates (1 and 2 controls) of 4 rollouts, 2 samples each.
    const task: Task = {
      ...loaded.task,
      planner: {
        ...p,
        loopMode: 'asynchronous',
        // The 2 ms predictions the comment below measures against: the task's real-time Euler
        // 5 ms ones end this push 9 mm / 0.1 rad from the 1 ms world, beyond the confirm tolerance.
        prediction: { integrator: 'Euler', timestep: 0.002 },
        optimizer: { ...p.optimizer, rollouts: 4 },
        tampc: { ...p.tampc, candidates: 2, minActions: 1, maxActions: 2, samples: 2, iterations: 1 },
      },
    };
    const { scene, x0 } = sampleScene(loaded.scene, task.sampling, deriveSeed(sceneSeed(1, 0), 'start'));
    // A world without noise: what it does differs from the prediction only by the physics
    // settings (RK4 at 1 ms against the planner's Euler at 2 ms). With the task's noise (b = 0.075)
    // a 0.05 m/s push already ended 4 mm from its prediction here, and step 1 was planned again.
    const world = await ExecutionWorld.create(scene, { kind: 'constant', variance: 0 }, 7, x0);
    const steps: PlannerStep[] = [];
    let observed: number[];
    try {
      const summary = await runTaskOn({
        task: { ...task, planner: { ...task.planner, maxExecutedActions: 2 } },
        scene,
        pool,
        model: { kind: 'fine' },
        seed: 1,
        plant: world,
        onStep: (s) => steps.push(s),
      });
      expect(summary.actions).toBe(2);
      observed = summary.states[1]!;
    } finally {
      world.dispose();
    }
    const fine = await FineModel.create({ ...scene, fine: task.planner.prediction });
    try {
      const end = Float64Array.from(steps[0]!.predictions.at(-1)!.states[1]!);
      const settled = fine.step(end, [0, 0], task.planner.tampc.restTime);
      expect(settled).not.toEqual(end);
      // Made for the predicted state and kept: the observation after control and rest agreed with it.
      expect(steps[1]!.replan).toEqual({ divergence: expect.anything(), replanned: false });
      expect(steps[1]!.start).toEqual(Array.from(settled));
      const d = fine.layout.maxSliderPoseChange(Float64Array.from(observed), settled);
      expect(steps[1]!.replan!.divergence.translation).toBeGreaterThanOrEqual(d.translation);
    } finally {
      fine.dispose();
    }
  });
});
