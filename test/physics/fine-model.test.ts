import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FineModel } from '#physics/fine-model';
import { initialState } from '#contract/state';
import { openTableScene, referenceScene } from '../helpers/scenes';

describe('fine model (MuJoCo)', () => {
  const scene = referenceScene('isrr-obstacle');
  let fine: FineModel;
  beforeAll(async () => {
    fine = await FineModel.create(scene);
  });
  afterAll(() => fine.dispose());

  it('is bit-identical on repeat and after unrelated calls on the same instance', () => {
    const x0 = initialState(scene);
    const first = fine.step(x0, [0.05, 0.01], 1);
    fine.step(first, [-0.03, 0.08], 1); // unrelated work on the same MjData
    fine.step(x0, [0.1, 0], 0.5);
    const again = fine.step(x0, [0.05, 0.01], 1);
    expect(Array.from(again)).toEqual(Array.from(first));
  });

  it('moves a free pusher by u*dt within 1%', () => {
    const x0 = initialState(scene);
    const [vx, vy] = [0, 0.08]; // sideways: no contact
    const x1 = fine.step(x0, [vx, vy], 1);
    const dy = x1[1]! - x0[1]!;
    expect(Math.abs(dy - vy * 1) / (vy * 1)).toBeLessThan(0.01);
    expect(Math.abs(x1[0]! - x0[0]!)).toBeLessThan(1e-4);
  });

  it('keeps the pusher within 1% of u*dt while it pushes a slider', () => {
    const x0 = initialState(scene);
    const x1 = fine.step(x0, [0.05, 0], 1);
    const x2 = fine.step(x1, [0.05, 0], 1);
    expect(Math.abs(x2[0]! - x1[0]! - 0.05) / 0.05).toBeLessThan(0.01);
  });

  it('counts its work: MuJoCo steps, and more solver iterations a step while it pushes than while it moves freely', () => {
    const x0 = initialState(scene);
    const count = (u: [number, number]): { steps: number; solverIterations: number } => {
      const before = { ...fine.work };
      fine.step(x0, u, 1);
      return {
        steps: fine.work.steps - before.steps,
        solverIterations: fine.work.solverIterations - before.solverIterations,
      };
    };
    const free = count([0, 0.08]); // sideways: no contact with the slider
    const push = count([0.05, 0]); // into the slider
    expect(free.steps).toBe(fine.stepsFor(1));
    expect(push.steps).toBe(fine.stepsFor(1));
    // The sliders rest on the table in both: the solver works, harder while pushing.
    expect(free.solverIterations).toBeGreaterThan(0);
    expect(push.solverIterations).toBeGreaterThan(1.5 * free.solverIterations);
    // Counted, not timed: the same job counts the same again.
    expect(count([0.05, 0])).toEqual(push);
  });

  it('rejects a control duration that is not a whole number of time steps', () => {
    expect(() => fine.step(initialState(scene), [0.01, 0], 0.0015)).toThrow(/whole number/);
  });
});

describe('centred push of a cylinder', () => {
  it('moves it along the push direction with small lateral and angular drift', async () => {
    const scene = openTableScene(1);
    const fine = await FineModel.create(scene);
    const L = fine.layout;
    let x = initialState(scene);
    const slider0 = L.sliderPose(x, 0);
    // Put the pusher right behind the slider centre and push along +x for 3 s at 50 mm/s.
    L.setPusher(x, slider0.x - 0.07, slider0.y);
    for (let k = 0; k < 3; k++) x = fine.step(x, [0.05, 0], 1);
    const s = L.sliderPose(x, 0);
    const forward = s.x - slider0.x;
    expect(forward).toBeGreaterThan(0.12);
    expect(Math.abs(s.y - slider0.y)).toBeLessThan(0.05 * forward);
    expect(Math.abs(s.theta)).toBeLessThan((5 * Math.PI) / 180);
    fine.dispose();
  });
});
