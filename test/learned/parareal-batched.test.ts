import { describe, expect, it } from 'vitest';
import type { State } from '#contract/state';
import { initialState, type Control } from '#contract/state';
import { parareal, type CoarsePropagator, type FineRunner } from '../../src-main/parareal/parareal';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { projectionGeometry } from '#physics/projection';
import { openTableScene } from '../helpers/scenes';

const scene = openTableScene(2);
const coarse = new AnalyticalCoarseModel(scene);
// A stand-in fine model: the analytical model with another rotation gain, so Parareal has work to do.
const other = new AnalyticalCoarseModel({ ...scene, coarse: { kOmega: 0.6, maxOmega: 0.5 } });
const fine: FineRunner = {
  size: 1,
  run: async (job) => {
    const states: State[] = [];
    let x = job.x;
    for (const u of job.controls) {
      x = other.step(x, u[0]!, u[1]!, job.dt);
      states.push(x);
    }
    return { id: 0, states, seconds: 0, cpu: 0, steps: 0, solverIterations: 0 };
  },
};

describe('Parareal with a batched coarse model', () => {
  it('runs the coarse sweep of all sequences through stepBatch, one call per control, with the same result', async () => {
    const calls: number[] = [];
    const batched: CoarsePropagator = {
      layout: coarse.layout,
      step: (x, ux, uy, dt, out) => coarse.step(x, ux, uy, dt, out),
      stepBatch: (xs, us, dt) => {
        calls.push(xs.length);
        return xs.map((x, r) => coarse.step(x, us[r]![0]!, us[r]![1]!, dt));
      },
    };
    const x0 = initialState(scene);
    const controls: Control[][] = [
      [
        [0.05, 0],
        [0.05, 0.01],
        [0.04, -0.02],
        [0.05, 0],
      ],
      [
        [0.03, 0.02],
        [0.05, 0],
        [0.05, 0],
        [0.02, 0.01],
      ],
      [
        [0.06, -0.01],
        [0.05, 0.02],
        [0.05, 0],
        [0.05, 0],
      ],
    ];
    const settings = { iterations: 2, tolerance: null, controlsPerSlice: 2, dt: 1 };
    const ctx = { sceneKey: 'k', fine, projection: projectionGeometry(scene) };
    const plain = await parareal({ ...ctx, coarse }, settings, { x0, controls });
    const withBatch = await parareal({ ...ctx, coarse: batched }, settings, { x0, controls });
    expect(calls).toEqual([3, 3, 3, 3]);
    const bits = (r: typeof plain): number[][][][] =>
      r.sequences.map((s) => s.iterates.map((it) => it.map((x) => Array.from(x))));
    expect(bits(withBatch)).toEqual(bits(plain));
    // The pusher moves in the pushed sequences' coarse sweeps: the test is not comparing empty results.
    expect(plain.sequences[0]!.iterates[0]!.at(-1)![0]).not.toBe(x0[0]);
  });
});
