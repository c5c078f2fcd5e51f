/** How the operator's planner settings become a console run's task, model and scene. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plannerPresets, type PlannerSettings } from '#contract/planner-settings';
import { modelForRun, sceneForRun } from '../../src-main/console/task-from-settings';
import { baseTask, taskForRun } from '../../src-main/planning/task-for-run';
import { openTableScene, referenceScene, repoRoot } from '../helpers/scenes';

const tasksDir = path.join(repoRoot, 'resources/tasks');
const base: PlannerSettings = { ...plannerPresets['isrr2019-parareal-2'].settings };

describe('console run from planner settings', () => {
  it("lays the settings over the scene's task file and keeps its costs", () => {
    const scene = referenceScene('isrr-obstacle');
    const settings = {
      ...base,
      rollouts: 7,
      horizon: 6,
      slices: 3,
      controlDuration: 0.5,
      maxExecutedActions: 9,
    };
    const task = taskForRun(baseTask(scene, tasksDir), { settings });
    expect(task.name).toBe('isrr-obstacle');
    expect(task.costs.map((c) => c.term)).toContain('obstacle-proximity');
    expect(task.planner).toMatchObject({
      kind: 'mpc',
      horizon: 6,
      controlDuration: 0.5,
      maxExecutedActions: 9,
      optimizer: { rollouts: 7, explorationVariance: settings.explorationVariance },
    });
  });

  it('builds a default task (goal distance, obstacle costs only with obstacles) for a scene without one', () => {
    const open = { ...openTableScene(), name: 'no-such-task' };
    const task = taskForRun(baseTask(open, tasksDir), { settings: base });
    expect(task.costs.map((c) => c.term)).toEqual(['goal-distance', 'control-smoothness']);
    const blocked = { ...referenceScene('isrr-obstacle'), name: 'no-such-task' };
    expect(taskForRun(baseTask(blocked, tasksDir), { settings: base }).costs.map((c) => c.term)).toContain(
      'obstacle-proximity',
    );
  });

  it('maps the prediction model: coarse, fine, Parareal K, adaptive tolerance, slices', () => {
    expect(modelForRun({ ...base, predictionModel: 'coarse' })).toEqual({ kind: 'coarse' });
    expect(modelForRun({ ...base, predictionModel: 'fine' })).toEqual({ kind: 'fine' });
    expect(modelForRun({ ...base, horizon: 4, slices: 2 })).toEqual({
      kind: 'parareal',
      iterations: 2,
      tolerance: null,
      controlsPerSlice: 2,
    });
    const adaptive = modelForRun({
      ...base,
      parareal: { mode: 'adaptive', translationTolerance: 0.002, rotationTolerance: 0.05, maxIterations: 3 },
    });
    expect(adaptive).toEqual({
      kind: 'parareal',
      iterations: 3,
      tolerance: { translation: 0.002, rotation: 0.05 },
      controlsPerSlice: 1,
    });
    expect(() => modelForRun({ ...base, horizon: 5, slices: 4 })).toThrow(/does not divide into 4/);
  });

  it('lowers the pusher speed limit to a stricter action limit, never raises it', () => {
    const scene = referenceScene('isrr-obstacle');
    const limit = scene.limits.maxPusherSpeed;
    expect(sceneForRun(scene, { ...base, maxPusherSpeed: limit / 2 }).limits.maxPusherSpeed).toBe(limit / 2);
    expect(sceneForRun(scene, { ...base, maxPusherSpeed: limit * 2 })).toBe(scene);
    const task = taskForRun(baseTask(scene, tasksDir), { settings: { ...base, maxPusherSpeed: 0.01 } });
    expect(task.planner.initialSpeed).toBeLessThanOrEqual(0.01);
  });
});
