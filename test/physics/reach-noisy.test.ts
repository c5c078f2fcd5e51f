/**
 * TAMPC's stochastic executions with only the objects each phase can move (`onlyReachable`,
 * reach-culled-model.ts runNoisy): the robot's drawn kicks widen its reach, a left-out object's
 * kicks are skipped in the full model's order and its state passes through, with every object in
 * reach the run is the full model's bit for bit, and a fine worker runs it as in process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '#contract/scene';
import type { JobNoise } from '#contract/worker-protocol';
import { initialState, layoutForScene, type Control, type State } from '#contract/state';
import { FineModel, noiseDofs } from '#physics/fine-model';
import { runNoisy } from '#physics/noisy-run';
import { noiseReach, reachableSliders } from '#physics/reach';
import { ReachCulledModel } from '#physics/reach-culled-model';
import { Rng } from '../../src-main/common/rng';
import { processNoise } from '../../src-main/planning/execution-world';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { clutterLane, clutterPrediction } from '../helpers/clutter-lane';

const prediction = { ...clutterPrediction, onlyReachable: true } as const;
/** The gripper facing `near` and `next` in its lane, a box in a corner (helpers/clutter-lane.ts). */
const lane = clutterLane(prediction);
/** The lane without the corner box: both objects lie in the robot's way. */
const pair: Scene = { ...lane, sliders: lane.sliders.slice(0, 2) };
const ahead: Control = [0.1, 0, 0, 0];
const controls: Control[] = [ahead, [0.05, 0.02, -0.3, 0.05]];
const STEPS = 200; // MuJoCo steps of a 1 s control at 5 ms

/** A sample's noise as TAMPC draws it: per step the robot's DOFs, then each slider's vx, vy, omega. */
function drawNoise(scene: Scene, seed: number, std: number): JobNoise {
  const rng = new Rng(seed);
  const dofs = noiseDofs(layoutForScene(scene));
  return {
    controlNoise: processNoise(rng, std, controls.length * STEPS, dofs),
    rest: 0.5,
    restNoise: processNoise(rng, std / 3, STEPS / 2, dofs),
  };
}

const values = (states: State[]): number[][] => states.map((s) => Array.from(s));

describe("the robot's kicks widen its reach", () => {
  const x0 = initialState(lane);
  const stride = noiseDofs(layoutForScene(lane));
  /** Kicks of `kick` m/s along x on the robot at every step of a 0.5 s phase, none elsewhere. */
  const kicks = (kick: number): Float64Array => {
    const v = new Float64Array(100 * stride);
    for (let k = 0; k < 100; k++) v[k * stride] = kick;
    return v;
  };

  it('by the kicks drawn: none leave the reach as it was, strong ones reach farther', () => {
    // Without noise a 0.5 s advance stops 4.5 cm short of `near` (reach.test.ts).
    const none = noiseReach(lane, kicks(0), 0, 100, stride, 0.005);
    expect(none).toEqual({ speed: 0, drift: 0 });
    expect(reachableSliders(lane, x0, ahead, 0.5, none)).toEqual([false, false, false]);
    // 0.1 m/s kicks at every step: the robot may drift 5 cm ahead of its commanded path.
    const strong = noiseReach(lane, kicks(0.1), 0, 100, stride, 0.005);
    expect(strong.speed).toBeCloseTo(0.1, 12);
    expect(strong.drift).toBeCloseTo(0.05, 12);
    expect(reachableSliders(lane, x0, ahead, 0.5, strong)).toEqual([true, true, false]);
  });

  it('more where the actuators restore the velocity more slowly than in one Euler step', () => {
    const rk4: Scene = { ...lane, fine: { ...prediction, integrator: 'RK4' } };
    const r = noiseReach(rk4, kicks(0.01), 0, 100, stride, 0.005);
    // The error settles at kick / (1 - 0.5).
    expect(r.speed).toBeCloseTo(0.02, 6);
    expect(r.drift).toBeGreaterThan(0.01 * 0.5);
  });
});

describe('a stochastic execution with only the reachable objects', () => {
  let full: FineModel;
  let culled: ReachCulledModel;
  beforeAll(async () => {
    full = await FineModel.create(lane);
    culled = await ReachCulledModel.create(lane, full);
  });
  afterAll(() => {
    culled.dispose();
    full.dispose();
  });

  it('is the full run bit for bit when every object is in reach throughout', async () => {
    const fullPair = await FineModel.create(pair);
    const culledPair = await ReachCulledModel.create(pair, fullPair);
    try {
      const x0 = initialState(pair);
      const noise = drawNoise(pair, 3, 0.003);
      const c = culledPair.runNoisy(x0, controls, 1, noise);
      // Every phase had both objects in reach, or this would not test the full path.
      expect(culledPair.counts.simulated).toBe(culledPair.counts.asked);
      expect(culledPair.counts.asked).toBe(2 * 3);
      expect(values(c)).toEqual(values(runNoisy(fullPair, x0, controls, 1, noise)));
    } finally {
      culledPair.dispose();
      fullPair.dispose();
    }
  });

  it("skips a left-out object's kicks, passes its state through and moves the rest as the full run", () => {
    const x0 = initialState(lane);
    const L = full.layout;
    const stride = noiseDofs(L);
    const noise = drawNoise(lane, 5, 0.003);
    // The corner box's kicks zero, and absurd: a culled run never reads them.
    const quiet = structuredClone(noise);
    const wild = structuredClone(noise);
    for (const [q, w] of [
      [quiet.controlNoise, wild.controlNoise],
      [quiet.restNoise, wild.restNoise],
    ] as const) {
      for (let at = 4 + 3 * 2; at < q.length; at += stride) {
        for (let c = 0; c < 3; c++) {
          q[at + c] = 0;
          w[at + c] = 1e3;
        }
      }
    }
    const counts = { ...culled.counts };
    const c = culled.runNoisy(x0, controls, 1, wild);
    // The box was left out of every phase, `near` and `next` in each.
    expect(culled.counts.asked - counts.asked).toBe(3 * 3);
    expect(culled.counts.simulated - counts.simulated).toBe(2 * 3);
    expect(values(culled.runNoisy(x0, controls, 1, quiet))).toEqual(values(c));
    const box = (s: State): number[] => [
      ...Array.from(s.subarray(L.posOffset(2), L.posOffset(2) + 3)),
      ...Array.from(s.subarray(L.velOffset(2), L.velOffset(2) + 3)),
    ];
    for (const s of c) expect(box(s)).toEqual(box(x0));
    // The full run with the box's kicks zero (it then lies still) moves the rest the same way, to
    // the contact solver's differences: a model with fewer constraints converges by another path,
    // and each change of model carries over only the planar state (0.3 mm here at the turning
    // grasp, against the real-world spread's 8 mm; docs/planner.md). Positions only: `near` and
    // `next` are cylinders, whose turn changes nothing of their footprint and which their contacts
    // barely constrain (their yaw differs by up to 2 deg).
    const f = runNoisy(full, x0, controls, 1, quiet);
    expect(L.sliderPose(c[0]!, 0).x - L.sliderPose(x0, 0).x).toBeGreaterThan(0.003);
    c.forEach((s, k) => {
      for (const i of [0, 1]) {
        const [p, q] = [L.sliderPose(s, i), L.sliderPose(f[k]!, i)];
        expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeLessThan(1e-3);
      }
      expect(Math.hypot(s[0]! - f[k]![0]!, s[1]! - f[k]![1]!)).toBeLessThan(1e-3);
      // And there the box lay still: it was out of reach.
      const [p, q] = [L.sliderPose(f[k]!, 2), L.sliderPose(x0, 2)];
      expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeLessThan(1e-5);
    });
  });
});

describe('a fine worker with onlyReachable', () => {
  it('runs noisy jobs with only the reachable objects, as in process, and counts their steps', async () => {
    const x0 = initialState(lane);
    const noise = drawNoise(lane, 9, 0.003);
    const full = await FineModel.create(lane);
    const culled = await ReachCulledModel.create(lane, full);
    const pool = new FinePool({ workers: 1 });
    try {
      const expected = culled.runNoisy(x0, controls, 1, noise);
      expect(culled.counts.simulated).toBeLessThan(culled.counts.asked);
      const r = await pool.run({
        sceneKey: pool.registerScene(lane),
        x: x0,
        controls: controls.map((u) => [...u]),
        dt: 1,
        noise,
      });
      expect(values(r.states)).toEqual(values(expected));
      // 2 controls and the rest, whichever models stepped them.
      expect(r.steps).toBe(2 * STEPS + STEPS / 2);
    } finally {
      await pool.close();
      culled.dispose();
      full.dispose();
    }
  });
});
