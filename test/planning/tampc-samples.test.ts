/**
 * TAMPC's stochastic samples run as noisy jobs on the worker pool: the same next state, to the
 * last bit, as the execution world run from a reset with the same seed, and a real WAFR plan
 * weighs a one-action push among its candidates.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { deriveSeed } from '../../src-main/common/rng';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { ExecutionWorld } from '../../src-main/planning/execution-world';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { createTaskRun, poolSampler } from '../../src-main/planning/task-run';
import type { TampcPlanner } from '../../src-main/planning/tampc';
import { DEFAULT_PREDICTION } from '../../src-main/contract/scene';
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
