import { describe, expect, it } from 'vitest';
import { initialState, type Control } from '#contract/state';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { optimize, weightedUpdate, type OptimizerSettings } from '../../src-main/planning/optimizer';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { Rng } from '../../src-main/common/rng';
import { openTableScene } from '../helpers/scenes';
import { kinematicRollout } from './toy';

const scene = openTableScene(1);
const g = new TaskGeometry(scene);
// Convex in the controls: the goal object moves with the summed controls, cost = |p_n - goal|^2.
const cost = new TrajectoryCost([{ term: 'goal-distance', weight: 100 }], g);
const x0 = initialState(scene);
const settings = (o: Partial<OptimizerSettings> = {}): OptimizerSettings => ({
  rollouts: 10,
  explorationVariance: 1e-4,
  update: { kind: 'greedy' },
  maxIterations: 40,
  costThreshold: 0,
  maxSpeed: 0.1,
  ...o,
});
const still: Control[] = [
  [0, 0],
  [0, 0],
  [0, 0],
  [0, 0],
];

describe('stochastic trajectory optimizer (WAFR 2018 Alg. 4)', () => {
  it('lowers the cost of a convex toy problem, never raising it between iterations', async () => {
    for (const update of [{ kind: 'greedy' as const }, { kind: 'weighted' as const, lambda: 0.5 }]) {
      const r = await optimize({
        x0,
        initial: still,
        uPrev: [0, 0],
        rollout: kinematicRollout(g.layout),
        cost,
        rng: new Rng(1),
        settings: settings({ update }),
      });
      expect(r.totalCost).toBeLessThan(0.5 * r.costHistory[0]!);
      for (let i = 1; i < r.costHistory.length; i++)
        expect(r.costHistory[i]).toBeLessThanOrEqual(r.costHistory[i - 1]!);
      // The returned trajectory is the one of the returned controls, and its costs sum to the total.
      expect(cost.evaluate(r.trajectory, r.controls, [0, 0]).reduce((a, b) => a + b)).toBeCloseTo(
        r.totalCost,
        12,
      );
      expect(r.value[0]).toBeCloseTo(r.totalCost, 12);
    }
  });

  it('greedy update takes exactly the cheapest noisy sequence, batching the initial rollout with the first samples', async () => {
    const seen: Control[][][] = [];
    const r = await optimize({
      x0,
      initial: still,
      uPrev: [0, 0],
      rollout: kinematicRollout(g.layout, 1, seen),
      cost,
      rng: new Rng(7),
      settings: settings({ maxIterations: 1 }),
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toHaveLength(11); // initial + K noisy in one batch
    const noisy = seen[0]!.slice(1);
    const totals = noisy.map((seq) => {
      const states = [x0];
      for (const u of seq) {
        const p = states[states.length - 1]!;
        const n = Float64Array.from(p);
        n[0] = p[0]! + u[0]!;
        n[1] = p[1]! + u[1]!;
        n[2] = p[2]! + u[0]!;
        n[3] = p[3]! + u[1]!;
        states.push(n);
      }
      return cost.evaluate(states, seq, [0, 0]).reduce((a, b) => a + b);
    });
    const best = totals.indexOf(Math.min(...totals));
    expect(r.controls).toEqual(noisy[best]);
    for (const seq of noisy)
      for (const u of seq) expect(Math.hypot(u[0]!, u[1]!)).toBeLessThanOrEqual(0.1 + 1e-12);
  });

  it('stops at the cost threshold without further rollouts', async () => {
    const seen: Control[][][] = [];
    const r = await optimize({
      x0,
      initial: still,
      uPrev: [0, 0],
      rollout: kinematicRollout(g.layout, 1, seen),
      cost,
      rng: new Rng(3),
      settings: settings({ costThreshold: 1e9 }),
    });
    expect(r.iterations).toBe(1); // the first iteration carries the initial rollout; then the threshold holds
    expect(seen).toHaveLength(1);
  });

  it('weighted update (Eq. 8) follows the cheap perturbations and averages equal ones', () => {
    const base: Control[] = [[0.01, 0]];
    const deltas: Control[][] = [[[0.02, 0]], [[-0.02, 0.01]]];
    const cheapFirst = weightedUpdate(base, deltas, [[0], [100]], 1);
    expect(cheapFirst[0]![0]).toBeCloseTo(0.03, 12);
    expect(cheapFirst[0]![1]).toBeCloseTo(0, 12);
    const equal = weightedUpdate(base, deltas, [[5], [5]], 1);
    expect(equal[0]![0]).toBeCloseTo(0.01, 12);
    expect(equal[0]![1]).toBeCloseTo(0.005, 12);
    // Large costs do not underflow to NaN.
    expect(Number.isFinite(weightedUpdate(base, deltas, [[1e6], [1e6 + 1]], 0.01)[0]![0])).toBe(true);
  });
});
