import { describe, expect, it } from 'vitest';
import {
  crossoverWorkers,
  fineJobs,
  pararealModel,
  predictLatency,
  type CostConstants,
} from '../../src-main/parareal/cost-model';

/** Every cost in units of one fine control; nothing else costs anything. */
const unit: CostConstants = { fineControl: 1, fineJob: 0, mainPerJob: 0, transit: 0, coarseControl: 0 };
const fine = { kind: 'fine' } as const;
const shape = (workers: number, sequences: number, horizon = 4) => ({ workers, sequences, horizon });

describe('cost model of a prediction batch', () => {
  it('runs the fine model as one job a sequence, in rounds of W', () => {
    expect(predictLatency(fine, shape(1, 1), unit)).toBe(4);
    expect(predictLatency(fine, shape(8, 1), unit)).toBe(4);
    expect(predictLatency(fine, shape(2, 20), unit)).toBe(40);
    expect(predictLatency(fine, shape(3, 20), unit)).toBe(28); // 7 rounds: a job cannot be split
    expect(predictLatency(fine, shape(20, 20), unit)).toBe(4);
  });

  it('gives Eq. 5 for one sequence with a worker per slice, and the serial sum on one worker', () => {
    for (const K of [1, 2, 3, 4]) {
      expect(predictLatency(pararealModel(K), shape(4, 1), unit)).toBe(K);
      expect(predictLatency(pararealModel(K), shape(1, 1), unit)).toBe(fineJobs(K, 4));
    }
  });

  it('takes slices of several controls as jobs of that many controls', () => {
    // K = 1 over 2 slices of 2 controls: two jobs side by side, or one after the other.
    expect(predictLatency(pararealModel(1, 2), shape(2, 1), unit)).toBe(2);
    expect(predictLatency(pararealModel(1, 2), shape(1, 1), unit)).toBe(4);
    // K = 2 over 2 slices is exact: the first slice's result is reused, the second run again.
    expect(predictLatency(pararealModel(2, 2), shape(2, 1), unit)).toBe(4);
    expect(() => predictLatency(pararealModel(1, 3), shape(2, 1), unit)).toThrow(/do not divide/);
  });

  it('spreads a batch of Parareal slices over the workers, pipelined, with no idle round', () => {
    // K = 2: 4 + 3 one-control jobs a sequence.
    expect(predictLatency(pararealModel(2), shape(2, 20), unit)).toBe(70);
    expect(predictLatency(pararealModel(2), shape(80, 20), unit)).toBe(2);
  });

  it('adds each cost where it falls: per job, per control, in transit, on the serial main thread', () => {
    const c: CostConstants = {
      fineControl: 5,
      fineJob: 1,
      mainPerJob: 0.25,
      transit: 0.5,
      coarseControl: 0.01,
    };
    // One job: transit, its work, the main thread taking the result.
    expect(predictLatency(fine, shape(1, 1), c)).toBeCloseTo(0.5 + 1 + 4 * 5 + 0.25, 12);
    // Parareal K = 1, a worker per slice: the coarse sweep, four jobs side by side, four results
    // taken one after another, the corrected slices swept again with the coarse model (slices 1..3).
    expect(predictLatency(pararealModel(1), shape(4, 1), c)).toBeCloseTo(
      4 * 0.01 + 0.5 + 1 + 5 + 4 * 0.25 + 3 * 0.01,
      12,
    );
    // The coarse model alone is the sweep.
    expect(predictLatency({ kind: 'coarse' }, shape(2, 20), c)).toBeCloseTo(20 * 4 * 0.01, 12);
  });

  it('does not scale the main thread with the workers: it bounds a batch of many small jobs', () => {
    const c = { ...unit, mainPerJob: 0.1 };
    const jobs = 20 * fineJobs(2, 4);
    expect(predictLatency(pararealModel(2), shape(1000, 20), c)).toBeGreaterThanOrEqual(jobs * 0.1);
    expect(predictLatency(fine, shape(1000, 20), c)).toBeCloseTo(4 + 20 * 0.1, 9);
  });

  it('finds the crossover: one sequence needs a few workers, a batch of 20 about 1.75 x 20', () => {
    const all = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(crossoverWorkers(pararealModel(1), { sequences: 1, horizon: 4 }, unit, all)).toBe(2);
    expect(crossoverWorkers(pararealModel(2), { sequences: 1, horizon: 4 }, unit, all)).toBe(3);
    // K = 2 does 7/4 of the fine model's work: it wins only once a round of it fits.
    expect(crossoverWorkers(pararealModel(2), { sequences: 20, horizon: 4 }, unit, all)).toBe(47);
    // Per-job overhead pushes it further out; the fine model's single round is never beaten by K = 4.
    const overhead = { ...unit, fineJob: 0.5 };
    expect(crossoverWorkers(pararealModel(2), { sequences: 20, horizon: 4 }, overhead, all)).toBeGreaterThan(
      47,
    );
    expect(crossoverWorkers(pararealModel(4), { sequences: 1, horizon: 4 }, unit, all)).toBeNull();
  });
});
