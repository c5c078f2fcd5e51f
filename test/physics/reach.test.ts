/**
 * Simulating only the objects a control can move (`onlyReachable`, physics/reach.ts and
 * reach-culled-model.ts): which objects a control reaches (swept by the robot's body, pushed on
 * by a pushed object, moving already), that a left-out object's state passes through unchanged,
 * and that the culled prediction is the full model's wherever the left-out objects are out of reach.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '#contract/scene';
import { initialState, layoutForScene, type Control, type State } from '#contract/state';
import { FineModel } from '#physics/fine-model';
import { reachableSliders, REST_SPEED } from '#physics/reach';
import { ReachCulledModel } from '#physics/reach-culled-model';
import { Rng } from '../../src-main/common/rng';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { clutter, clutterLane, clutterPrediction as prediction, cylinder } from '../helpers/clutter-lane';

/** The gripper facing `near` and `next` in its lane, a box in a corner (helpers/clutter-lane.ts). */
const lane = clutterLane();
const ahead: Control = [0.1, 0, 0, 0];
const still: Control = [0, 0, 0, 0];

describe('which objects a control can move', () => {
  const x0 = initialState(lane);

  it('none when the robot stands still among objects at rest', () => {
    expect(reachableSliders(lane, x0, still, 1)).toEqual([false, false, false]);
  });

  it('those the body sweeps, what they push on, and nothing out of the way', () => {
    // A 1 s advance at 0.1 m/s puts the fingertips 5 mm into `near`; `next` is within a pushed
    // object's travel of it; the box in the corner is out of everything's way.
    expect(reachableSliders(lane, x0, ahead, 1)).toEqual([true, true, false]);
    // Half as far stops 4.5 cm short of `near`, beyond the margin: nothing moves.
    expect(reachableSliders(lane, x0, ahead, 0.5)).toEqual([false, false, false]);
    // Backing away reaches nothing, however fast.
    expect(reachableSliders(lane, x0, [-0.5, 0, 0, 0], 1)).toEqual([false, false, false]);
  });

  it('counts the turning body: the palm corner sweeps an object beside it', () => {
    // A cylinder beside the palm, clear of it at yaw 0.
    const side: Scene = { ...lane, sliders: [cylinder('side', -0.36, 0.14, 0.03)] };
    const x = initialState(side);
    expect(reachableSliders(side, x, still, 1)).toEqual([false]);
    // Turning clockwise swings the palm's back corner forward past it; anticlockwise, away.
    expect(reachableSliders(side, x, [0, 0, -1, 0], 1)).toEqual([true]);
    expect(reachableSliders(side, x, [0, 0, 1, 0], 1)).toEqual([false]);
  });

  it('an object moving already, and what it can reach', () => {
    const L = layoutForScene(lane);
    const x = Float64Array.from(x0);
    // The corner box sliding slowly: simulated, though the robot stands still.
    x[L.velOffset(2)] = 2 * REST_SPEED;
    expect(reachableSliders(lane, x, still, 1)).toEqual([false, false, true]);
    // `next` sliding towards `near`: both.
    const y = Float64Array.from(x0);
    y[L.velOffset(1)] = -0.05;
    expect(reachableSliders(lane, y, still, 1)).toEqual([true, true, false]);
  });
});

describe('the prediction with only the reachable objects', () => {
  let full: FineModel;
  let culled: ReachCulledModel;
  beforeAll(async () => {
    full = await FineModel.create({ ...lane, fine: { ...prediction, onlyReachable: true } });
    culled = await ReachCulledModel.create({ ...lane, fine: { ...prediction, onlyReachable: true } }, full);
  });
  afterAll(() => {
    culled.dispose();
    full.dispose();
  });

  it('passes a left-out object through unchanged and moves the others as the full model does', () => {
    const x0 = initialState(lane);
    const L = full.layout;
    // A speck of rest velocity on the corner box, below REST_SPEED: it is left out and keeps it.
    x0[L.velOffset(2)] = REST_SPEED / 2;
    const counts = { ...culled.counts };
    const c = culled.step(x0, ahead, 1);
    expect(culled.counts.simulated - counts.simulated).toBe(2);
    expect(Array.from(c.subarray(L.posOffset(2), L.posOffset(2) + 3))).toEqual(
      Array.from(x0.subarray(L.posOffset(2), L.posOffset(2) + 3)),
    );
    expect(Array.from(c.subarray(L.velOffset(2), L.velOffset(2) + 3))).toEqual(
      Array.from(x0.subarray(L.velOffset(2), L.velOffset(2) + 3)),
    );
    const f = full.step(x0, ahead, 1);
    // The pushed objects and the gripper, as the full model has them.
    expect(L.sliderPose(c, 0).x - L.sliderPose(x0, 0).x).toBeGreaterThan(0.003);
    for (const i of [0, 1]) {
      const [p, q] = [L.sliderPose(c, i), L.sliderPose(f, i)];
      expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeLessThan(1e-5);
      expect(Math.abs(p.theta - q.theta)).toBeLessThan(1e-4);
    }
    expect(Math.abs(c[0]! - f[0]!)).toBeLessThan(1e-6);
    // And the full model left the corner box where it lay.
    const [p, q] = [L.sliderPose(f, 2), L.sliderPose(x0, 2)];
    expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeLessThan(1e-5);
  });

  it('is the full model itself when every object is in reach', () => {
    const x0 = initialState(lane);
    const L = full.layout;
    x0[L.velOffset(2)] = 0.01;
    expect(Array.from(culled.step(x0, ahead, 1))).toEqual(Array.from(full.step(x0, ahead, 1)));
  });
});

describe('the bound holds in clutter', () => {
  it('no object left out by a random control moves in the full model', async () => {
    const scene: Scene = { ...clutter, fine: prediction };
    const fine = await FineModel.create(scene);
    const L = fine.layout;
    const rng = new Rng(7);
    const u = (): Control => [
      rng.between(-0.3, 0.3),
      rng.between(-0.3, 0.3),
      rng.between(-1, 1),
      rng.between(-0.1, 0.1),
    ];
    let left = 0;
    try {
      let x: State = initialState(scene);
      for (let k = 0; k < 24; k++) {
        // From the start now and then, so the gripper stays among the objects.
        if (k % 3 === 0) x = initialState(scene);
        const c = u();
        const reach = reachableSliders(scene, x, c, 1);
        const next = fine.step(x, c, 1);
        reach.forEach((r, i) => {
          if (r) return;
          left++;
          const [p, q] = [L.sliderPose(next, i), L.sliderPose(x, i)];
          expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeLessThan(1e-4);
        });
        x = next;
      }
    } finally {
      fine.dispose();
    }
    // The check checked something: some objects were left out.
    expect(left).toBeGreaterThan(5);
  });
});

describe('a fine worker with onlyReachable', () => {
  it('predicts noise-free jobs with only the reachable objects, as in process', async () => {
    const scene: Scene = { ...lane, fine: { ...prediction, onlyReachable: true } };
    const x0 = initialState(scene);
    const controls: Control[] = [ahead, [0.05, 0.02, -0.3, 0.05], still];
    const full = await FineModel.create(scene);
    const culled = await ReachCulledModel.create(scene, full);
    const pool = new FinePool({ workers: 1 });
    try {
      const expected: State[] = [];
      let x: State = x0;
      for (const u of controls) expected.push((x = culled.step(x, u, 1)));
      // Some control left an object out, or the comparison would not tell the models apart.
      expect(culled.counts.simulated).toBeLessThan(culled.counts.asked);
      const r = await pool.run({
        sceneKey: pool.registerScene(scene),
        x: x0,
        controls: controls.map((u) => [...u]),
        dt: 1,
      });
      expect(r.states.map((s) => Array.from(s))).toEqual(expected.map((s) => Array.from(s)));
    } finally {
      await pool.close();
      culled.dispose();
      full.dispose();
    }
  });
});
