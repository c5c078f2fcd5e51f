import { afterAll, describe, expect, it } from 'vitest';
import { initialState } from '#contract/state';
import { ExecutionWorld, noiseStd } from '../../src-main/planning/execution-world';
import { FineModel } from '#physics/fine-model';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');
const x0 = initialState(scene);
const noisy = { kind: 'constant', variance: 1e-4 } as const;
const worlds: ExecutionWorld[] = [];
const make = async (noise: Parameters<typeof ExecutionWorld.create>[1], seed: number) => {
  const w = await ExecutionWorld.create(scene, noise, seed, x0);
  worlds.push(w);
  return w;
};
afterAll(() => worlds.forEach((w) => w.dispose()));

async function run(w: ExecutionWorld): Promise<Float64Array[]> {
  const out: Float64Array[] = [];
  for (const u of [
    [0.1, 0],
    [0.05, 0.05],
  ] as const) {
    await w.execute(u, 0.05);
    out.push(w.observe());
  }
  return out;
}

describe('execution world', () => {
  it('reproduces its noise from the seed, and a different seed gives a different run', async () => {
    const a = await run(await make(noisy, 11));
    const b = await run(await make(noisy, 11));
    const c = await run(await make(noisy, 12));
    expect(a).toEqual(b);
    expect(a[1]).not.toEqual(c[1]);
    // reset() starts the same stream over.
    const w = worlds[0]!;
    w.reset(x0, 11);
    expect(await run(w)).toEqual(a);
  });

  it('without noise it keeps its own history and matches the fine model step by step', async () => {
    const w = await make({ kind: 'constant', variance: 0 }, 1);
    const states = await run(w);
    const fine = await FineModel.create(scene);
    try {
      const f1 = fine.step(x0, [0.1, 0], 0.05);
      expect(states[0]).toEqual(f1);
      // The second control continues from the world's state: the pusher has moved 5 mm.
      expect(states[1]![0]).toBeCloseTo(x0[0]! + 0.005 + 0.0025, 3);
    } finally {
      fine.dispose();
    }
  });

  it('WAFR noise grows with the commanded speed and vanishes at rest', () => {
    const b = { kind: 'action-proportional', slope: 0.075 } as const;
    expect(noiseStd(b, [0, 0], 0.001)).toBe(0);
    expect(noiseStd(b, [0.1, 0], 0.001)).toBeCloseTo(0.0075, 12);
    expect(noiseStd(b, [0, 0.05], 0.001)).toBeCloseTo(0.00375, 12);
    expect(noiseStd(noisy, [0, 0], 0.001)).toBeCloseTo(0.01, 12);
  });

  it("reads WAFR b |u| as each step's variance (the papers' words, docs/noise.md): kick sqrt(b |u|), whatever the step", () => {
    const b = { kind: 'action-proportional', slope: 0.075, reading: 'variance-per-step' } as const;
    expect(noiseStd(b, [0, 0], 0.001)).toBe(0);
    expect(noiseStd(b, [0.1, 0], 0.001)).toBeCloseTo(Math.sqrt(0.0075), 12);
    expect(noiseStd(b, [0.1, 0], 0.005)).toBe(noiseStd(b, [0.1, 0], 0.001));
    // ISRR's fixed variance is read the same way: 1e-4 per step, a 0.01 m/s kick.
    expect(noiseStd({ kind: 'constant', variance: 1e-4 }, [0.1, 0], 0.001)).toBeCloseTo(0.01, 12);
  });

  it('reads WAFR b |u| as a variance per second: per-step variance b |u| dt, the same spread at any step', () => {
    const b = { kind: 'action-proportional', slope: 0.075, reading: 'variance-per-second' } as const;
    expect(noiseStd(b, [0, 0], 0.001)).toBe(0);
    // b |u| = 0.0075 m^2/s^3 at 0.1 m/s: sqrt(0.0075 * 1e-3) per 1 ms step.
    expect(noiseStd(b, [0.1, 0], 0.001)).toBeCloseTo(Math.sqrt(7.5e-6), 12);
    // Five 1 ms kicks carry the variance of one 5 ms kick.
    expect(5 * noiseStd(b, [0.1, 0], 0.001) ** 2).toBeCloseTo(noiseStd(b, [0.1, 0], 0.005) ** 2, 15);
    // At b |u| = dt the two readings give the same kick.
    const std = { kind: 'action-proportional', slope: 0.05 } as const;
    expect(noiseStd({ ...std, reading: 'variance-per-second' }, [0.02, 0], 0.001)).toBeCloseTo(
      noiseStd(std, [0.02, 0], 0.001),
      12,
    );
  });
});
