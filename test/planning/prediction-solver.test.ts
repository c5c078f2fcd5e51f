/**
 * The prediction model's solver stopping rules (`fine.solver`) and the whole-step checks of a task's
 * prediction timestep: absent, the MJCF is exactly MuJoCo's defaults'; present, MuJoCo takes them;
 * a bad value or a step that does not fit the task's durations is refused naming the field.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FineModel } from '#physics/fine-model';
import { sceneToMjcf } from '#physics/mjcf';
import { initialState } from '#contract/state';
import type { Scene } from '#contract/scene';
import { parseTask } from '../../src-main/planning/task-file';
import { referenceScene, repoRoot } from '../helpers/scenes';

const base = referenceScene('isrr-obstacle');
const withFine = (fine: Scene['fine']): Scene => ({ ...base, fine });
const euler = { integrator: 'Euler', timestep: 0.005 } as const;

const clutter = JSON.parse(
  readFileSync(path.join(repoRoot, 'resources/tasks/wafr-clutter.json'), 'utf8'),
) as {
  planner: { prediction: Record<string, unknown>; tampc: Record<string, unknown> };
};
const withPrediction = (prediction: Record<string, unknown>, tampc: Record<string, unknown> = {}) => ({
  ...clutter,
  planner: {
    ...clutter.planner,
    prediction: { ...clutter.planner.prediction, ...prediction },
    tampc: { ...clutter.planner.tampc, ...tampc },
  },
});

describe('prediction solver settings', () => {
  it('leave the MJCF as it was when absent, and write MuJoCo option attributes when present', () => {
    expect(sceneToMjcf(withFine({ ...euler, solver: {} }))).toBe(sceneToMjcf(withFine(euler)));
    expect(sceneToMjcf(withFine(euler))).not.toMatch(/iterations|tolerance/);
    const option = sceneToMjcf(
      withFine({ ...euler, solver: { tolerance: 1e-4, iterations: 4, lsIterations: 5 } }),
    );
    expect(option).toMatch(/<option [^>]* iterations="4" tolerance="0.0001" ls_iterations="5"/);
  });

  it('are taken by MuJoCo: fewer solver iterations per step, and a push still moves the slider', async () => {
    const push = async (fine: Scene['fine']) => {
      const model = await FineModel.create(withFine(fine));
      try {
        const x0 = initialState(withFine(fine));
        const L = model.layout;
        const p = L.sliderPose(x0, 0);
        L.setPusher(x0, p.x - 0.07, p.y);
        const end = model.step(model.step(x0, [0.05, 0], 1), [0.05, 0], 1);
        return {
          moved: L.sliderPose(end, 0).x - p.x,
          perStep: model.work.solverIterations / model.work.steps,
        };
      } finally {
        model.dispose();
      }
    };
    const tight = await push(euler);
    const loose = await push({ ...euler, solver: { iterations: 1 } });
    expect(tight.perStep).toBeGreaterThan(1);
    expect(loose.perStep).toBeLessThanOrEqual(1);
    expect(loose.moved).toBeGreaterThan(0.03);
    expect(Math.abs(loose.moved - tight.moved)).toBeLessThan(0.01);
  });

  it('refuse a bad value naming the field', () => {
    expect(() => parseTask(withPrediction({ solver: { iterations: 0 } }))).toThrow(
      'planner.prediction.solver.iterations: must be at least 1',
    );
    expect(() => parseTask(withPrediction({ solver: { tolrance: 1e-4 } }))).toThrow(
      /planner\.prediction\.solver/,
    );
  });
});

describe('a task prediction timestep', () => {
  it("must divide TAMPC's rest as well as the control into whole steps", () => {
    expect(parseTask(withPrediction({ timestep: 0.00625 })).planner.prediction.timestep).toBe(0.00625);
    // 8 ms divides the 1 s control (125 steps) but not the 0.5 s rest (62.5).
    expect(() => parseTask(withPrediction({ timestep: 0.008 }))).toThrow(
      "planner.prediction.timestep: must divide TAMPC's rest time (0.5 s) into whole steps",
    );
    expect(parseTask(withPrediction({ timestep: 0.008 }, { restTime: 0.504 })).planner.tampc.restTime).toBe(
      0.504,
    );
  });
});
