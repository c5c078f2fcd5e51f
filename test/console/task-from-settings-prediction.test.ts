/**
 * The console's prediction-model settings reach the run: the fine model the planner predicts with
 * and the loop mode go into the task, `auto` stays a request for the run to resolve, and a run's
 * recorded settings give the same settings back.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plannerPresets, plannerSettingsSchema, type PlannerSettings } from '#contract/planner-settings';
import { modelForRun } from '../../src-main/console/task-from-settings';
import { baseTask, taskForRun } from '../../src-main/planning/task-for-run';
import { plannerSettingsOf } from '../../src-main/run/run-recorder';
import { referenceScene, repoRoot } from '../helpers/scenes';

const tasksDir = path.join(repoRoot, 'resources/tasks');
const base: PlannerSettings = { ...plannerPresets['isrr2019-parareal-2'].settings };

describe('console run from the prediction-model settings', () => {
  it('puts the prediction fine model and the loop mode into the task', () => {
    const scene = referenceScene('isrr-obstacle');
    const settings: PlannerSettings = {
      ...base,
      prediction: { integrator: 'RK4', timestep: 0.001 },
      loopMode: 'asynchronous',
    };
    const task = taskForRun(baseTask(scene, tasksDir), { settings });
    expect(task.planner.prediction).toEqual({ integrator: 'RK4', timestep: 0.001 });
    expect(task.planner.loopMode).toBe('asynchronous');
    // The world keeps the scene's own fine model.
    expect(scene.fine).toEqual({ integrator: 'RK4', timestep: 0.001 });
    const defaults = taskForRun(baseTask(scene, tasksDir), { settings: base });
    expect(defaults.planner.prediction).toEqual({ integrator: 'Euler', timestep: 0.002 });
    expect(defaults.planner.loopMode).toBe('synchronous');
  });

  it('asks for auto as auto, whatever the slices', () => {
    expect(modelForRun({ ...base, predictionModel: 'auto' })).toEqual({ kind: 'auto' });
    expect(modelForRun({ ...base, predictionModel: 'auto', horizon: 5, slices: 4 })).toEqual({
      kind: 'auto',
    });
  });

  it("records a run's settings so that they parse back to the same prediction and loop mode", () => {
    const scene = referenceScene('isrr-obstacle');
    const settings: PlannerSettings = {
      ...base,
      predictionModel: 'fine',
      prediction: { integrator: 'implicitfast', timestep: 0.0005 },
      loopMode: 'asynchronous',
    };
    const task = taskForRun(baseTask(scene, tasksDir), { settings });
    const recorded = plannerSettingsSchema.parse(
      plannerSettingsOf(task, scene, { kind: 'fine' }, 'analytical'),
    );
    expect(recorded.prediction).toEqual(settings.prediction);
    expect(recorded.loopMode).toBe('asynchronous');
    expect(taskForRun(baseTask(scene, tasksDir), { settings: recorded }).planner).toMatchObject({
      prediction: settings.prediction,
      loopMode: 'asynchronous',
    });
  });
});
