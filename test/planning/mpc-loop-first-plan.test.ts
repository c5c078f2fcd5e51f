/**
 * A first plan begun before the MPC loop (mpc-loop.ts planFirstStep, MpcLoopOptions.firstPlan):
 * the loop sends it when its first observation confirms the state it was made from, plans afresh
 * when the table has moved since, and gives it up when the run is aborted while it is made.
 */
import { describe, expect, it } from 'vitest';
import { type Plan, type PlanContext, type Planner } from '../../src-main/planning/planner';
import type { PlannerStep } from '#contract/planner-events';
import { initialState, type Tolerance } from '#contract/state';
import { planFirstStep, type FirstPlan } from '../../src-main/planning/mpc-loop';
import type { Plant } from '../../src-main/planning/plant';
import {
  geometry,
  KinematicPlanner,
  KinematicPlant,
  runKinematicLoop,
  scene,
} from '../helpers/kinematic-mpc';

const L = geometry.layout;
const tolerance: Tolerance = { translation: 0.003, rotation: 0.03 };
const dt = 0.1;

async function run(
  plant: Plant,
  planner: Planner,
  firstPlan: FirstPlan,
  asynchronous: boolean,
): Promise<{ steps: PlannerStep[]; taskTime: number; planningTimes: number[] }> {
  const { summary, steps } = runKinematicLoop(plant, planner, {
    dt,
    maxActions: 3,
    tolerance,
    asynchronous,
    firstPlan,
  });
  const { actions, taskTime, planningTimes } = await summary;
  expect(actions).toBe(3);
  return { steps, taskTime, planningTimes };
}

describe('a first plan begun before the loop', () => {
  for (const asynchronous of [false, true]) {
    it(`is sent when the table is where it was planned from (${asynchronous ? 'a' : ''}synchronous)`, async () => {
      const x0 = initialState(scene);
      const planner = new KinematicPlanner(dt);
      const first = planFirstStep({ planner, geometry, x: x0 });
      // Planned as the loop plans its first step: no control before it, no warm start.
      expect(planner.contexts[0]).toMatchObject({ step: 0, uPrev: [0, 0] });
      expect(planner.contexts[0]!.previous).toBeUndefined();
      expect(await first.settled).toBeUndefined();
      const { steps, taskTime, planningTimes } = await run(
        new KinematicPlant(x0),
        planner,
        first,
        asynchronous,
      );
      // Step 0 was not planned again.
      expect(planner.contexts.filter((c) => c.step === 0)).toHaveLength(1);
      expect(steps[0]).toMatchObject({
        beforeArming: true,
        replan: { divergence: { translation: 0, rotation: 0 }, replanned: false },
        start: Array.from(x0),
      });
      for (const s of steps.slice(1)) expect(s).not.toHaveProperty('beforeArming');
      // Made before the loop began, it kept nobody waiting: task time holds no planning of step 0.
      const later = asynchronous ? 0 : planningTimes.slice(1).reduce((a, b) => a + b, 0);
      expect(taskTime).toBeCloseTo(3 * dt + later, 9);
    });
  }

  it('is dropped for a fresh plan from the observation when the table moved since', async () => {
    const x0 = initialState(scene);
    const planner = new KinematicPlanner(dt);
    const first = planFirstStep({ planner, geometry, x: x0 });
    await first.settled;
    // The object was moved 2 cm by hand before the loop began.
    const moved = Float64Array.from(x0);
    const s = L.sliderPose(x0, 0);
    L.setSlider(moved, 0, { ...s, y: s.y + 0.02 });
    const { steps } = await run(new KinematicPlant(moved), planner, first, false);
    const step0 = planner.contexts.filter((c) => c.step === 0);
    expect(step0).toHaveLength(2);
    expect(Array.from(step0[1]!.x)).toEqual(Array.from(moved));
    expect(first.cancel.signal.aborted).toBe(true);
    expect(steps[0]).toMatchObject({
      beforeArming: false,
      replan: { replanned: true },
      start: Array.from(moved),
    });
    expect(steps[0]!.replan!.divergence.translation).toBeCloseTo(0.02, 9);
  });

  it("is given up the moment the run aborts, without waiting for the planner's answer", async () => {
    const asked: PlanContext[] = [];
    // A plan that never comes: only the abort can settle it.
    const planner: Planner = {
      plan: (ctx) => {
        asked.push(ctx);
        return new Promise<Plan>(() => undefined);
      },
    };
    const operator = new AbortController();
    const first = planFirstStep({ planner, geometry, x: initialState(scene), signal: operator.signal });
    operator.abort();
    expect((await first.settled)?.name).toBe('PlanAborted');
    await expect(first.plan).rejects.toThrow('aborted');
    // The planner was told too: its queued predictions leave the workers.
    expect(asked[0]!.signal?.aborted).toBe(true);
  });
});
