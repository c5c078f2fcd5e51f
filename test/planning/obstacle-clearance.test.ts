/**
 * The planner keeps its predicted path clear of the obstacle it was told to avoid: a few MPC
 * steps of a fixed isrr-obstacle scene (the straight push to the goal runs into the obstacle),
 * planned with the fine model on the worker pool and executed in the noisy execution world.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleInitialState } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { ExecutionWorld } from '../../src-main/planning/execution-world';
import { runMpc } from '../../src-main/planning/mpc-loop';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { deriveSeed } from '../../src-main/common/rng';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { createTaskRun } from '../../src-main/planning/task-run';
import { overlap } from '#physics/geometry2d';
import type { PlannerStep } from '#contract/planner-events';
import { repoRoot } from '../helpers/scenes';

const STEPS = 6;
const pool = new FinePool({ workers: 2 });
afterAll(() => pool.close());

describe('fine-model MPC on isrr-obstacle', () => {
  it(`plans ${STEPS} steps whose predicted paths keep clear of the obstacle`, async () => {
    const { task, scene } = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));
    // Scene 2 of seed 1: the start the README's experiment failed on before the clearance cost.
    const seed = sceneSeed(1, 2);
    const x0 = sampleInitialState(scene, task.sampling, deriveSeed(seed, 'start'));
    const g = new TaskGeometry(scene);
    const world = await ExecutionWorld.create(scene, task.execution.noise, deriveSeed(seed, 'execution'), x0);
    const parts = await createTaskRun({ task, scene, pool, model: { kind: 'fine' }, seed });
    const steps: PlannerStep[] = [];
    try {
      const summary = await runMpc({
        plant: world,
        planner: parts.planner,
        geometry: g,
        controlDuration: task.planner.controlDuration,
        maxActions: STEPS,
        timeLimit: 3600,
        workers: pool.size,
        theoreticalSpeedup: null,
        onStep: (s) => steps.push(s),
      });
      expect(summary.failure).toBeNull();
    } finally {
      world.dispose();
      parts.dispose();
    }
    expect(steps).toHaveLength(STEPS);
    const obstacle = g.obstacles[0]!;
    let closest = Infinity;
    for (const step of steps) {
      const predicted = step.predictions[step.predictions.length - 1]!.states.map((s) =>
        Float64Array.from(s),
      );
      // Along each predicted control (interpolated), object and pusher stay outside the obstacle.
      for (let t = 0; t + 1 < predicted.length; t++) {
        for (let f = 0; f <= 1; f += 0.1) {
          const y = predicted[t]!.map((v, j) => v + f * (predicted[t + 1]![j]! - v));
          const gap = Math.min(
            -overlap(g.placedSlider(y, 0), obstacle).depth,
            -overlap(g.placedRobot(y)[0]!, obstacle).depth,
          );
          closest = Math.min(closest, gap);
        }
      }
    }
    expect(closest).toBeGreaterThan(0);
    // Keeping clear is not standing still: the object moved on towards the obstacle's far side.
    const last = g.layout.sliderPose(Float64Array.from(steps[STEPS - 1]!.start), 0);
    expect(last.x).toBeGreaterThan(g.layout.sliderPose(x0, 0).x + 0.05);
  });
});
