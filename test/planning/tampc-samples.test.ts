/**
 * TAMPC's stochastic samples run as noisy jobs on the worker pool: the same next state, to the
 * last bit, as the execution world run from a reset with the same seed; on the coarser
 * prediction model they spread like the world they sample for; and a real WAFR plan weighs a
 * one-action push among its candidates.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { deriveSeed } from '../../src-main/common/rng';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { ExecutionWorld } from '../../src-main/planning/execution-world';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { createTaskRun, poolSampler, poolSettle } from '../../src-main/planning/task-run';
import { FineModel } from '#physics/fine-model';
import type { TampcPlanner } from '../../src-main/planning/tampc/tampc-planner';
import { DEFAULT_PREDICTION } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { repoRoot } from '../helpers/scenes';

const pool = new FinePool({ workers: 2 });
afterAll(() => pool.close());
const { task, scene: taskScene } = loadTaskFile(
  path.join(repoRoot, 'resources/tasks/wafr-low-accuracy.json'),
);
const { scene, x0 } = sampleScene(taskScene, task.sampling, deriveSeed(sceneSeed(1, 0), 'start'));

describe('TAMPC samples on the worker pool', () => {
  it('match the execution world bit for bit, per seed, with either noise model', async () => {
    const predictionScene = { ...scene, fine: DEFAULT_PREDICTION };
    for (const noise of [task.execution.noise, { kind: 'constant', variance: 1e-4 } as const]) {
      const requests = [3, 4, 5].map((seed) => ({ x0, u: [0.3, 0.01] as const, dt: 1, restTime: 0.5, seed }));
      const pooled = await poolSampler(
        pool,
        predictionScene,
        noise,
        predictionScene.fine.timestep,
      )(requests.map((r) => ({ ...r, u: [r.u[0], r.u[1]] })));
      const world = await ExecutionWorld.create(predictionScene, noise, 0, x0);
      try {
        requests.forEach((r, i) => {
          world.reset(r.x0, r.seed);
          world.apply([r.u[0], r.u[1]], r.dt);
          world.apply([0, 0], r.restTime);
          expect(pooled[i]).toEqual(world.observe());
        });
      } finally {
        world.dispose();
      }
      expect(pooled[0]).not.toEqual(pooled[1]);
    }
  });

  it("predict a plan's rest for asynchronous MPC: the prediction model with the arm still, noise-free", async () => {
    const predictionScene = { ...scene, fine: DEFAULT_PREDICTION };
    const fine = await FineModel.create(predictionScene);
    try {
      // The state a 1 s push at 0.3 m/s ends in: the object still sliding when the control ends.
      const end = fine.step(x0, [0.3, 0.01], 1);
      const settled = await poolSettle(pool, predictionScene)(end, 0.5);
      expect(settled).toEqual(fine.step(end, [0, 0], 0.5));
      expect(settled).not.toEqual(end);
    } finally {
      fine.dispose();
    }
    // The run's TAMPC planner predicts its rests so.
    const parts = await createTaskRun({ task, scene, pool, model: { kind: 'fine' }, seed: 1 });
    expect(parts.planner.settle).toBeTypeOf('function');
  });

  it('spread like the 1 ms world when they step at 2 ms', async () => {
    // 30 seeded 1 s pushes at 0.1 m/s, then 0.5 s at rest: the spread across the push (y) and of
    // the heading, world (RK4 at 1 ms) against samples (Euler at 2 ms). Unscaled kicks every 2 ms
    // give the samples 0.6 times the world's spread on this scene. The task's reading at a slope
    // whose kicks match ISRR's variance (b |u| = 1e-4): at the task's own b the object leaves the
    // table in most pushes, and a spread of positions off the table says nothing of the kicks.
    const noise = { ...task.execution.noise, slope: 1e-3 };
    const seeds = Array.from({ length: 30 }, (_, k) => 100 + k);
    const u = [0.1, 0] as const;
    const predictionScene = { ...scene, fine: DEFAULT_PREDICTION };
    const sampled = await poolSampler(
      pool,
      predictionScene,
      noise,
      scene.fine.timestep,
    )(seeds.map((seed) => ({ x0, u, dt: 1, restTime: 0.5, seed })));
    const world = await ExecutionWorld.create(scene, noise, 0, x0);
    const executed = seeds.map((seed) => {
      world.reset(x0, seed);
      world.apply(u, 1);
      world.apply([0, 0], 0.5);
      return world.observe();
    });
    world.dispose();
    const layout = layoutForScene(scene);
    const goal = layout.sliderIndex(scene.goal.slider);
    const spread = (states: readonly Float64Array[], key: 'y' | 'theta'): number => {
      const v = states.map((x) => layout.sliderPose(x, goal)[key]);
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      return Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1));
    };
    for (const key of ['y', 'theta'] as const) {
      const ratio = spread(sampled, key) / spread(executed, key);
      expect(ratio, key).toBeGreaterThan(0.75);
      expect(ratio, key).toBeLessThan(1.33);
    }
  });

  it('a WAFR plan weighs a one-action fast push among its candidates', async () => {
    const parts = await createTaskRun({ task, scene, pool, model: { kind: 'coarse' }, seed: 1 });
    try {
      const planner = parts.planner as TampcPlanner;
      await planner.plan({ x: x0, step: 0, uPrev: [0, 0] });
      const lengths = planner.lastEvaluations.map((e) => e.optimized.controls.length);
      expect(lengths).toEqual([1, 5, 8]);
      const fast = planner.lastEvaluations[0]!;
      expect(Math.hypot(...fast.optimized.controls[0]!)).toBeGreaterThan(0.3);
      for (const e of planner.lastEvaluations) expect(Number.isFinite(e.value)).toBe(true);
    } finally {
      parts.dispose();
    }
  });
});
