/**
 * A gripper scene's states and controls in the session log: named as the gripper's (x, y, yaw,
 * opening and their rates), told from a pusher's by the state's length, and read back exactly.
 */
import { describe, expect, it } from 'vitest';
import { type PlannerStep } from '#contract/planner-events';
import { loggedPlannerStepSchema } from '../../src-main/session/named-state';
import {
  loggedPlannerStep,
  namedState,
  plannerStepOf,
  robotPoint,
  stateVector,
  StateLengthError,
} from '../../src-main/session/named-state';

const ids = ['target', 'object1'];
/** 8 + 6 * 2 entries: gripper (x, y, yaw, opening), two slider poses, then the rates. */
const x = Array.from({ length: 20 }, (_, i) => 0.01 * (i + 1));

describe('named states of a gripper scene', () => {
  it('names the gripper and the sliders after its four entries, and reads them back exactly', () => {
    const s = namedState(ids, x);
    expect(s.pusher).toBeUndefined();
    expect(s.gripper).toEqual({
      x: 0.01,
      y: 0.02,
      yaw: 0.03,
      opening: 0.04,
      vx: x[10],
      vy: x[11],
      omega: x[12],
      vopening: x[13],
    });
    expect(s.sliders[0]).toMatchObject({ id: 'target', x: x[4], y: x[5], theta: x[6], vx: x[14] });
    expect(s.sliders[1]).toMatchObject({ id: 'object1', x: x[7], omega: x[19] });
    expect(stateVector(s)).toEqual(x);
    expect(robotPoint(s)).toEqual({ x: 0.01, y: 0.02 });
  });

  it('names a length that fits neither robot as an error', () => {
    expect(() => namedState(ids, x.slice(1))).toThrow(StateLengthError);
    expect(() => namedState(ids, x.slice(1))).toThrow('has 16 entries (pusher) or 20 (gripper), not 19');
  });

  it('logs 4-input controls with their yaw rate and opening speed, and plays them back', () => {
    const step: PlannerStep = {
      step: 0,
      time: 0,
      sliderIds: ids,
      start: x,
      plan: [
        [0.1, 0.02, 0.3, -0.05],
        [0.05, 0, 0, 0],
      ],
      controlDuration: 1,
      predictions: [{ iteration: 0, states: [x, x] }],
      convergence: [],
      costs: [1],
      timings: { planning: 1, prediction: 1, workers: 1, theoreticalSpeedup: null },
    };
    const logged = loggedPlannerStep(step);
    expect(logged.plan[0]).toEqual({ vx: 0.1, vy: 0.02, omega: 0.3, vopening: -0.05 });
    expect(loggedPlannerStepSchema.parse(JSON.parse(JSON.stringify(logged)))).toEqual(logged);
    expect(plannerStepOf(logged)).toEqual(step);
  });
});
