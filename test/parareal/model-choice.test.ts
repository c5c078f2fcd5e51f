import { describe, expect, it } from 'vitest';
import type { CostConstants } from '../../src-main/parareal/cost-model';
import { readCrossoverResult } from '../../src-main/parareal/crossover-result';
import { chooseAuto, parseModelSpec, resolveModel } from '../../src-main/parareal/model-choice';
import type { PredictionModel } from '../../src-main/parareal/predictor';

const parareal = (iterations: number): PredictionModel => ({
  kind: 'parareal',
  iterations,
  tolerance: null,
  controlsPerSlice: 1,
});

/** Costs in units of one fine control (seconds here), nothing else. */
const unit: CostConstants = { fineControl: 1, fineJob: 0, mainPerJob: 0, transit: 0, coarseControl: 0 };

describe('auto prediction model', () => {
  it('parses as a model choice, with either coarse model', () => {
    expect(parseModelSpec('auto')).toEqual({ model: { kind: 'auto' }, coarse: 'analytical' });
    expect(parseModelSpec('auto@learned').coarse).toBe('learned');
  });

  it('predicts each model with the cost model and keeps the fine model on a tie', () => {
    const load = { workers: 2, sequences: 20, horizon: 4 };
    const c = chooseAuto(load, unit);
    expect(c.estimates.map((e) => [e.model, e.cost])).toEqual([
      [{ kind: 'fine' }, 40],
      [parareal(2), 70],
      [parareal(3), 90],
    ]);
    expect(c.model).toEqual({ kind: 'fine' });
    expect(c.reason).toMatch(/fine model .*40000 ms/);
    // One sequence of 4 controls: K = 2 ties the fine model on 2 workers and beats it on 3.
    expect(chooseAuto({ workers: 2, sequences: 1, horizon: 4 }, unit).model).toEqual({ kind: 'fine' });
    const three = chooseAuto({ workers: 3, sequences: 1, horizon: 4 }, unit);
    expect(three.model).toEqual(parareal(2));
    expect(three.reason).toMatch(/parareal:2 \(expected 3000 ms against 4000 ms/);
  });

  it("switches to Parareal exactly where the committed crossover bench's figure says", () => {
    const r = readCrossoverResult();
    for (const kind of ['prediction', 'step'] as const) {
      const sequences = kind === 'prediction' ? 1 : r.stepSequences;
      const from = r.crossover[kind].auto;
      for (let workers = 1; workers <= r.maxWorkers; workers++) {
        const chosen = chooseAuto({ workers, sequences, horizon: r.horizon }).model;
        expect([kind, workers, chosen.kind]).toEqual([
          kind,
          workers,
          from !== null && workers >= from ? 'parareal' : 'fine',
        ]);
      }
    }
  });

  it('never offers Parareal below the iterations that reach the real-world spread', () => {
    const c = chooseAuto({ workers: 10_000, sequences: 1, horizon: 8 }, unit);
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
