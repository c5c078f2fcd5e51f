/**
 * The one description of a plan (planning/step-record.ts): the MPC loop's planner-step events and
 * what-if's re-planned step are the same record of the same plan.
 */
import { describe, expect, it } from 'vitest';
import { type Plan, type Planner } from '../../src-main/planning/planner';
import { plannerStepSchema } from '#contract/planner-events';
import { stepRecord } from '../../src-main/planning/step-record';
import { replanStep } from '../../src-main/session/what-if';
import {
  loggedPlannerStep,
  loggedPlannerStepSchema,
  plannerStepOf,
} from '../../src-main/session/named-state';
import { defaultPlannerSettings as settings } from '#contract/planner-settings';

const x0 = Float64Array.from([0, 0, 0.1, 0, 0, 0, 0, 0, 0, 0]);
const x1 = Float64Array.from([0.01, 0, 0.1, 0, 0, 0, 0, 0, 0, 0]);
const plan: Plan = {
  controls: [
    [0.05, 0],
    [0.04, 0.01],
  ],
  restTime: 0,
  iterates: [
    [x0, x1],
    [x0, x1],
  ],
  iterationLabels: [0, 1],
  changes: [{ translation: 0.002, rotation: 0.01 }],
  costs: [3, 2.5],
  predictionTime: 0.04,
  sequences: 12,
  work: { cpu: 0.07, steps: 4000, solverIterations: 9000 },
  rollouts: [[x0, x1]],
};

describe('stepRecord', () => {
  it('describes a plan: what from where, predicted how, at what cost in time', () => {
    const step = stepRecord({
      step: 2,
      time: 1.5,
      sliderIds: ['box'],
      start: x0,
      plan,
      planning: 0.2,
      controlDuration: 0.5,
      workers: 3,
      theoreticalSpeedup: 2,
      replan: { divergence: { translation: 0.001, rotation: 0 }, replanned: false },
    });
    expect(plannerStepSchema.parse(step)).toEqual(step);
    expect(step).toMatchObject({
      step: 2,
      time: 1.5,
      sliderIds: ['box'],
      start: Array.from(x0),
      plan: [
        [0.05, 0],
        [0.04, 0.01],
      ],
      predictions: [
        { iteration: 0, states: [Array.from(x0), Array.from(x1)] },
        { iteration: 1, states: [Array.from(x0), Array.from(x1)] },
      ],
      convergence: [{ iteration: 1, translation: 0.002, rotation: 0.01 }],
      costs: [3, 2.5],
      rollouts: [[Array.from(x0), Array.from(x1)]],
      timings: {
        planning: 0.2,
        prediction: 0.04,
        sequences: 12,
        workerCpu: 0.07,
        fineSteps: 4000,
        solverIterations: 9000,
        workers: 3,
        theoreticalSpeedup: 2,
      },
    });
    expect(stepRecord({ ...inputs(), rollouts: false })).not.toHaveProperty('rollouts');
  });

  it('says whether the first step was planned before arming, as data the session log keeps', () => {
    for (const beforeArming of [true, false]) {
      const step = stepRecord({ ...inputs(), beforeArming });
      expect(plannerStepSchema.parse(step).beforeArming).toBe(beforeArming);
      const logged = loggedPlannerStepSchema.parse(JSON.parse(JSON.stringify(loggedPlannerStep(step))));
      expect(plannerStepOf(logged)).toEqual(step);
    }
    // Steps not planned ahead (every later step, simulated runs, older logs) have no such field.
    const plain = stepRecord(inputs());
    expect(plain).not.toHaveProperty('beforeArming');
    expect(plannerStepOf(loggedPlannerStepSchema.parse(loggedPlannerStep(plain)))).toEqual(plain);
  });

  it('is the record what-if returns for a step planned again', async () => {
    const planner: Planner = { plan: async () => plan };
    const factory = { workers: 2, create: async () => ({ planner, dispose: () => undefined }) };
    const original = stepRecord(inputs());
    // The scene only reaches the factory, which has its planner already.
    const r = await replanStep(factory, null as never, original, settings);
    const expected = stepRecord({
      ...inputs(),
      controlDuration: settings.controlDuration,
      workers: 2,
      theoreticalSpeedup: null,
      rollouts: false,
      planning: r.replanned.timings.planning,
    });
    expect(r.replanned).toEqual(expected);
  });
});

function inputs() {
  return {
    step: 0,
    time: 0,
    sliderIds: ['box'],
    start: x0,
    plan,
    planning: 0.1,
    controlDuration: 0.5,
    workers: 1,
    theoreticalSpeedup: null,
  };
}
