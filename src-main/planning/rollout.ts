/**
 * Batched trajectory rollouts (WAFR 2018 Alg. 5's prediction step for many sequences at once).
 * The optimizer hands every sequence of an iteration to one call so the chosen prediction model
 * (coarse, Parareal or fine) can spread them over the worker pool.
 */
import type { State } from '#contract/state';
import { type Control, type Tolerance } from '#contract/state';
import type { FineWork } from '../parareal/parareal';
import type { Predictor } from '../parareal/predictor';

export interface RolloutBatch {
  /** trajectories[r][n]: the model's best estimate of the state at control boundary n (0 = start). */
  trajectories: State[][];
  /** iterates[r][k][n]: every Parareal iterate (one entry for coarse or fine alone). */
  iterates: State[][][];
  /** changes[r][k-1]: largest slider pose change between iterates k and k-1. */
  changes: Tolerance[][];
  /** Wall time of the batch (s). */
  wallTime: number;
  /** The fine work the batch took on the workers (none for the coarse model alone). */
  work: FineWork;
}

/** Predicts every sequence from x0; aborting `signal` abandons the batch (it rejects). */
export type BatchRollout = (x0: State, sequences: Control[][], signal?: AbortSignal) => Promise<RolloutBatch>;

export function predictorRollout(predictor: Predictor): BatchRollout {
  return async (x0, sequences, signal) => {
    const result = await predictor.predict({ x0, controls: sequences, ...(signal ? { signal } : {}) });
    return {
      trajectories: result.sequences.map((s) => s.iterates[s.iterates.length - 1]!),
      iterates: result.sequences.map((s) => s.iterates),
      changes: result.sequences.map((s) => s.changes),
      wallTime: result.timing.wallTime,
      work: result.timing.fineWork,
    };
  };
}
