/**
 * The console's planner settings: the prediction model (with `auto`), the fine model the planner
 * predicts with and the loop mode; settings saved before those existed still load, with defaults.
 */
import { describe, expect, it } from 'vitest';
import { formatIssues } from '#contract/console-api';
import {
  defaultPlannerSettings,
  plannerPresets,
  plannerSettingsSchema,
  type PlannerSettings,
} from '#contract/planner-settings';
import { DEFAULT_PREDICTION } from '#contract/scene';
import { DEFAULT_PREDICTION as TASK_DEFAULT_PREDICTION } from '../../src-main/planning/task-file';

/** Settings as the console saved them before prediction and loopMode existed. */
const saved = {
  predictionModel: 'parareal',
  parareal: { mode: 'iterations', iterations: 2 },
  slices: 4,
  coarseModel: 'analytical',
  rollouts: 20,
  horizon: 4,
  controlDuration: 1,
  explorationVariance: 1e-4,
  maxPusherSpeed: 0.1,
  planner: 'mpc',
  maxExecutedActions: 20,
};

const issuesOf = (value: unknown) => {
  const r = plannerSettingsSchema.safeParse(value);
  if (r.success) throw new Error('expected the settings to be refused');
  return r.error;
};

describe('planner settings: prediction model settings and loop mode', () => {
  it('parses settings saved before the new fields, with the defaults (Euler 2 ms, synchronous)', () => {
    const s = plannerSettingsSchema.parse(saved);
    expect(s.prediction).toEqual({ integrator: 'Euler', timestep: 0.002 });
    expect(s.loopMode).toBe('synchronous');
    expect(DEFAULT_PREDICTION).toBe(TASK_DEFAULT_PREDICTION);
  });

  it('keeps every preset and the default valid, predicting with the default fine model', () => {
    for (const { settings } of Object.values(plannerPresets)) {
      const s = plannerSettingsSchema.parse(settings);
      expect(s.prediction).toEqual(DEFAULT_PREDICTION);
    }
    expect(defaultPlannerSettings.prediction).toEqual(DEFAULT_PREDICTION);
  });

  it('plans asynchronously only where the plan fits in a control and predicts with the fine model', () => {
    const asynchronous = Object.entries(plannerPresets)
      .filter(([, p]) => p.settings.loopMode === 'asynchronous')
      .map(([name]) => name);
    expect(asynchronous).toEqual(['isrr2019-fine']);
    // The default (auto: fine or Parareal, by machine) stays synchronous: a Parareal prediction
    // ends 19-23 mm from the fine model's, and a plan made from it would nearly always be dropped.
    expect(defaultPlannerSettings.loopMode).toBe('synchronous');
  });

  it('accepts auto, another integrator and timestep, and asynchronous MPC', () => {
    const s: PlannerSettings = plannerSettingsSchema.parse({
      ...saved,
      predictionModel: 'auto',
      prediction: { integrator: 'RK4', timestep: 0.001 },
      loopMode: 'asynchronous',
    });
    expect(s).toMatchObject({
      predictionModel: 'auto',
      prediction: { integrator: 'RK4', timestep: 0.001 },
      loopMode: 'asynchronous',
    });
  });

  it('refuses a timestep that does not divide the control duration, naming prediction.timestep', () => {
    const error = issuesOf({ ...saved, prediction: { integrator: 'Euler', timestep: 0.003 } });
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]!.path).toEqual(['prediction', 'timestep']);
    expect(formatIssues(error)).toBe(
      'prediction.timestep: must divide the control duration (1 s) into whole steps',
    );
    // The rule follows the control duration: 3 ms fits 0.3 s controls.
    expect(
      plannerSettingsSchema.safeParse({
        ...saved,
        controlDuration: 0.3,
        prediction: { integrator: 'Euler', timestep: 0.003 },
      }).success,
    ).toBe(true);
  });

  it.each([
    [{ integrator: 'Euler', timestep: 0.00005 }, 'prediction.timestep: must be at least 0.0001 s'],
    [{ integrator: 'Euler', timestep: 0.02 }, 'prediction.timestep: must be at most 0.01 s'],
    [{ integrator: 'Verlet', timestep: 0.002 }, /^prediction\.integrator: /],
    [{ integrator: 'Euler', timestep: 0.002, substeps: 2 }, /^prediction: /],
  ])('refuses prediction %j with the field named', (prediction, message) => {
    expect(formatIssues(issuesOf({ ...saved, prediction }))).toMatch(message);
  });

  it('refuses an unknown loop mode, naming loopMode', () => {
    expect(formatIssues(issuesOf({ ...saved, loopMode: 'parallel' }))).toMatch(/^loopMode: /);
  });
});
