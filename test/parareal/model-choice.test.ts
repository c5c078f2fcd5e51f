import { describe, expect, it } from 'vitest';
import {
  chooseAuto,
  estimateBatchCost,
  parseModelSpec,
  resolveModel,
} from '../../src-main/parareal/model-choice';
import type { PredictionModel } from '../../src-main/parareal/predictor';

const parareal = (iterations: number): PredictionModel => ({
  kind: 'parareal',
  iterations,
  tolerance: null,
  controlsPerSlice: 1,
});

describe('auto prediction model', () => {
  it('parses as a model choice, with either coarse model', () => {
    expect(parseModelSpec('auto')).toEqual({ model: { kind: 'auto' }, coarse: 'analytical' });
    expect(parseModelSpec('auto@learned').coarse).toBe('learned');
  });

  it('counts fine work: whole sequences for the fine model, pipelined slices for Parareal', () => {
    const load = { workers: 2, sequences: 20, horizon: 4 };
    // 10 rounds of 4-control jobs.
    expect(estimateBatchCost({ kind: 'fine' }, load)).toBe(40);
    // K = 2 needs 4 + 3 one-control jobs per sequence: 140 jobs on 2 workers, plus the coarse sweeps.
    expect(estimateBatchCost(parareal(2), load)).toBeCloseTo(70 + 20 * 4 * 3 * 1e-3, 9);
    // With a worker per job, the critical path remains: K controls against a whole horizon.
    const wide = { workers: 1000, sequences: 20, horizon: 4 };
    expect(estimateBatchCost({ kind: 'fine' }, wide)).toBe(4);
    expect(estimateBatchCost(parareal(2), wide)).toBeLessThan(2.5);
  });

  it('keeps the fine model while the sequences fill the workers, and picks Parareal beyond', () => {
    for (const workers of [1, 2, 4, 8, 15]) {
      expect(chooseAuto({ workers, sequences: 20, horizon: 4 }).model).toEqual({ kind: 'fine' });
    }
    const many = chooseAuto({ workers: 200, sequences: 20, horizon: 4 });
    expect(many.model).toEqual(parareal(2));
    expect(many.reason).toMatch(/parareal:2/);
  });

  it('never offers Parareal below the iterations that reach the real-world spread', () => {
    const c = chooseAuto({ workers: 10_000, sequences: 1, horizon: 8 });
    for (const e of c.estimates)
      if (e.model.kind === 'parareal') expect(e.model.iterations).toBeGreaterThanOrEqual(2);
  });

  it('passes a named model through untouched', () => {
    expect(resolveModel(parareal(3), { workers: 2, sequences: 20, horizon: 4 })).toEqual({
      model: parareal(3),
      reason: null,
    });
  });
});
