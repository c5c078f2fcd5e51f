/**
 * Stochastic trajectory optimization (WAFR 2018 Alg. 4, an adaptation of STOMP).
 *
 * Each iteration perturbs the current control sequence K times with Gaussian noise of the
 * exploration variance, predicts all K sequences in ONE batched rollout, and forms a candidate:
 * - greedy (Eq. 7, the default): the lowest-cost noisy sequence;
 * - weighted (Eq. 8): per control, the exp(-C/lambda)-weighted mean of the perturbations.
 * The candidate replaces the current sequence only if its total cost is lower. The loop stops at
 * the iteration limit or once the total cost is at or below the threshold.
 *
 * The first iteration's noisy sequences do not depend on the cost of the initial sequence, so the
 * initial rollout (Alg. 4 line 1) rides in the same batch: K + 1 sequences in the first call.
 * Perturbed controls are clamped to the robot's limits (control-space.ts); the stored perturbation
 * is the clamped difference, so U + dU is always the sequence that was actually predicted.
 */
import type { ControlLimits } from '#contract/end-effector/end-effector';
import { type Control, type Tolerance } from '#contract/state';
import type { State } from '#contract/state';
import { clampControl } from './control-space';
import { addFineWork, noFineWork, type FineWork } from '../parareal/parareal';
import type { TrajectoryCost } from './costs/trajectory-cost';
import type { BatchRollout } from './rollout';
import type { Rng } from '../common/rng';

export type UpdateRule = { kind: 'greedy' } | { kind: 'weighted'; lambda: number };

export interface OptimizerSettings extends ControlLimits {
  /** K: noisy rollouts per iteration. */
  rollouts: number;
  /**
   * nu: variance of the noise on each control input: one for every input ((m/s)^2 on the
   * pusher's velocities), or one per input (the gripper's (m/s)^2, (rad/s)^2, (m/s)^2).
   */
  explorationVariance: number | readonly number[];
  update: UpdateRule;
  /** I_max: optimizer iterations (each one batched rollout, two for the weighted update). */
  maxIterations: number;
  /** C_thresh: stop once the total cost is at or below this. */
  costThreshold: number;
}

export interface OptimizeInput {
  x0: State;
  initial: readonly Control[];
  /**
   * Other sequences to weigh against `initial` before the search starts (e.g. a fresh approach
   * beside the warm start); the cheapest of them is the starting point.
   */
  alternatives?: readonly (readonly Control[])[];
  /** The control executed just before (for smoothness costs); [0, 0] at the start. */
  uPrev: Control;
  rollout: BatchRollout;
  cost: TrajectoryCost;
  rng: Rng;
  settings: OptimizerSettings;
  /** Aborting it abandons the optimization: its predictions stop and it rejects. */
  signal?: AbortSignal;
}

export interface OptimizeResult {
  controls: Control[];
  /** C*[t]: per-control cost of the returned sequence (terminal cost in the last entry). */
  stepCosts: number[];
  /** V~[j] = sum_{h >= j} C*[h]: approximate value along the optimal trajectory. */
  value: number[];
  totalCost: number;
  /** Total cost of the current sequence after the initial rollout and after each iteration. */
  costHistory: number[];
  /** The returned sequence's predicted states, its Parareal iterates and their changes. */
  trajectory: State[];
  iterates: State[][];
  changes: Tolerance[];
  iterations: number;
  /** Predicted states of the last iteration's noisy rollouts (at most MAX_TRACES), for the live view. */
  rollouts: State[][];
  /** Wall time spent in batched rollouts (s). */
  predictionTime: number;
  sequencesPredicted: number;
  /** The fine work of those predictions on the workers: with sequencesPredicted, work per sequence. */
  work: FineWork;
}

/** Rollout traces kept per step: enough to see the search, small enough for every event. */
export const MAX_TRACES = 20;

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

interface Candidate {
  controls: Control[];
  stepCosts: number[];
  total: number;
  trajectory: State[];
  iterates: State[][];
  changes: Tolerance[];
}

export async function optimize(input: OptimizeInput): Promise<OptimizeResult> {
  const { x0, rollout, cost, rng, settings } = input;
  const n = input.initial.length;
  if (n === 0) throw new Error('cannot optimize an empty control sequence');
  const variance = settings.explorationVariance;
  const stds = input.initial[0]!.map((_, j) =>
    Math.sqrt(typeof variance === 'number' ? variance : variance[j]!),
  );
  let predictionTime = 0;
  let sequencesPredicted = 0;
  const work = noFineWork();

  const predict = async (sequences: Control[][]): Promise<Candidate[]> => {
    const batch = await rollout(x0, sequences, input.signal);
    predictionTime += batch.wallTime;
    sequencesPredicted += sequences.length;
    addFineWork(work, batch.work);
    return sequences.map((controls, r) => {
      const trajectory = batch.trajectories[r]!;
      const stepCosts = cost.evaluate(trajectory, controls, input.uPrev);
      return {
        controls,
        stepCosts,
        total: sum(stepCosts),
        trajectory,
        iterates: batch.iterates[r]!,
        changes: batch.changes[r]!,
      };
    });
  };

  const perturb = (base: readonly Control[]): { controls: Control[]; delta: Control[] } => {
    const controls = base.map((u) =>
      clampControl(
        u.map((v, j) => v + stds[j]! * rng.normal()),
        settings,
      ),
    );
    return { controls, delta: controls.map((u, t) => u.map((v, j) => v - base[t]![j]!)) };
  };

  const start = input.initial.map((u) => clampControl(u, settings));
  let current: Candidate | undefined;
  let lastRollouts: State[][] = [];
  const costHistory: number[] = [];
  let iterations = 0;
  while (
    iterations < settings.maxIterations &&
    (current === undefined || current.total > settings.costThreshold)
  ) {
    const base = current?.controls ?? start;
    const noisy = Array.from({ length: settings.rollouts }, () => perturb(base));
    const sequences = noisy.map((s) => s.controls);
    const starts = current
      ? []
      : [start, ...(input.alternatives ?? []).map((a) => a.map((u) => clampControl(u, settings)))];
    const predicted = await predict([...starts, ...sequences]);
    lastRollouts = predicted.slice(starts.length, starts.length + MAX_TRACES).map((c) => c.trajectory);
    if (!current) {
      current = predicted.splice(0, starts.length).reduce((best, c) => (c.total < best.total ? c : best));
      costHistory.push(current.total);
    }
    iterations++;
    let candidate: Candidate;
    if (settings.update.kind === 'greedy') {
      candidate = predicted.reduce((best, c) => (c.total < best.total ? c : best));
    } else {
      const controls = weightedUpdate(
        base,
        noisy.map((s) => s.delta),
        predicted.map((c) => c.stepCosts),
        settings.update.lambda,
      );
      candidate = (await predict([controls.map((u) => clampControl(u, settings))]))[0]!;
    }
    if (candidate.total < current.total) current = candidate;
    costHistory.push(current.total);
  }
  if (!current) current = (await predict([start]))[0]!; // maxIterations = 0: just evaluate the start
  if (costHistory.length === 0) costHistory.push(current.total);

  const value: number[] = new Array<number>(n);
  let acc = 0;
  for (let j = n - 1; j >= 0; j--) value[j] = acc += current.stepCosts[j]!;
  return {
    controls: current.controls,
    stepCosts: current.stepCosts,
    value,
    totalCost: current.total,
    costHistory,
    trajectory: current.trajectory,
    iterates: current.iterates,
    changes: current.changes,
    iterations,
    rollouts: lastRollouts,
    predictionTime,
    sequencesPredicted,
    work,
  };
}

/**
 * WAFR 2018 Eq. 8: U*[t] = U[t] + sum_k exp(-C_k[t]/lambda) dU_k[t] / sum_k exp(-C_k[t]/lambda).
 * The smallest cost at each t is subtracted before exponentiating (the weights are unchanged by
 * it, and exp no longer underflows to 0/0 for large costs).
 */
export function weightedUpdate(
  base: readonly Control[],
  deltas: readonly (readonly Control[])[],
  stepCosts: readonly (readonly number[])[],
  lambda: number,
): Control[] {
  if (!(lambda > 0)) throw new Error(`lambda must be > 0, got ${lambda}`);
  return base.map((u, t) => {
    const costs = stepCosts.map((c) => c[t]!);
    const min = Math.min(...costs);
    let wsum = 0;
    const d = u.map(() => 0);
    costs.forEach((c, k) => {
      const w = Math.exp(-(c - min) / lambda);
      wsum += w;
      deltas[k]![t]!.forEach((v, j) => (d[j]! += w * v));
    });
    return u.map((v, j) => v + d[j]! / wsum);
  });
}
