/**
 * The `auto` prediction model: fine or Parareal, whichever is expected to predict a planner's
 * batch of sequences sooner at the accuracy the task needs, given the workers at hand.
 *
 * Both run on one worker pool whose queue holds every fine job of every sequence, so the choice is
 * a matter of counting fine work, in units of one control simulated by the fine model (c):
 * - fine alone: one job of H controls per sequence; S sequences on W workers take
 *   ceil(S / W) * H * c (a job cannot be split).
 * - Parareal with K iterations and one control per slice: iteration k needs the slices from k on
 *   (the first k are exact), so a sequence costs sum_{k=1..K} (H - k + 1) one-control jobs. The
 *   pool packs them, and pipelining leaves a critical path of K controls:
 *   max(K, ceil(S * sum / W)) * c, plus the serial coarse sweeps on the main thread.
 * Parareal pays when the workers outnumber what fine-alone can use (W > S); with the few cores of
 * a lab PC, fine alone wins. `npm run bench -- planner` measures both and prints what auto picks.
 */
import { parsePredictionModel, type PredictionModel } from './predictor';
import type { CoarseModelKind, ModelRequestKind } from '#contract/planner-settings';

/**
 * What a user asks for (the console's settings, `--model`, an experiment's model spec): a
 * concrete model, or `auto`, which resolveModel turns into one for the run's load. Its kind is
 * the settings' predictionModel.
 */
export type ModelRequest = PredictionModel | { kind: 'auto' };
// The settings name exactly the kinds a request has.
true satisfies ModelRequest['kind'] extends ModelRequestKind
  ? ModelRequestKind extends ModelRequest['kind']
    ? true
    : false
  : false;

/** parsePredictionModel's spellings, and "auto". */
export function parseModelRequest(spec: string): ModelRequest {
  return spec === 'auto' ? { kind: 'auto' } : parsePredictionModel(spec);
}

/**
 * A model spec as an experiment column writes it, MODEL[@COARSE]: the request and the coarse
 * model it uses (ignored by `fine`).
 */
export interface ModelSpec {
  model: ModelRequest;
  coarse: CoarseModelKind;
}

/**
 * Parses a model spec with an optional coarse-model suffix: "parareal:2@learned",
 * "coarse@learned", "fine", "auto" (the experiment runner's spelling, so one experiment can
 * compare the analytical and the learned coarse model on paired runs).
 */
export function parseModelSpec(spec: string): ModelSpec {
  const [base = '', coarse = 'analytical', ...rest] = spec.split('@');
  if (rest.length > 0 || (coarse !== 'analytical' && coarse !== 'learned'))
    throw new Error(`"${spec}": the coarse model after @ must be analytical or learned`);
  const model = parseModelRequest(base);
  if (model.kind === 'fine' && coarse !== 'analytical')
    throw new Error(`"${spec}": the fine model uses no coarse model`);
  return { model, coarse };
}

export interface PlanningLoad {
  workers: number;
  /** Control sequences predicted per batch (the optimizer's rollouts). */
  sequences: number;
  /** Controls per sequence. */
  horizon: number;
}

/**
 * Parareal iterations that bring the analytical coarse model within the real-world pushing
 * spread on the papers' pushes (ISRR 2019 Table I; `npm run bench -- parareal table1`): K = 2.
 */
export const ITERATIONS_FOR_REAL_WORLD_ACCURACY = 2;

/** A serial coarse control costs this fraction of a fine one (analytical model: microseconds). */
const COARSE_TO_FINE_COST = 1e-3;

export interface ModelEstimate {
  model: PredictionModel;
  /** Expected wall time of one batch in units of one fine-model control. */
  cost: number;
}

export interface AutoChoice {
  model: PredictionModel;
  estimates: ModelEstimate[];
  /** One line for the operator and the log: what was chosen and why. */
  reason: string;
}

/** One-control fine jobs of one sequence: K iterations over N slices, exact slices skipped. */
export function fineJobs(K: number, N: number): number {
  let jobs = 0;
  for (let k = 1; k <= Math.min(K, N); k++) jobs += N - k + 1;
  return jobs;
}

/**
 * Expected wall time of predicting one batch, in units of one fine-model control
 * (coarseToFine: the cost of a coarse control in the same unit).
 */
export function estimateBatchCost(
  model: PredictionModel,
  load: PlanningLoad,
  coarseToFine = COARSE_TO_FINE_COST,
): number {
  const { workers: W, sequences: S, horizon: H } = load;
  if (model.kind === 'coarse') return S * H * coarseToFine;
  if (model.kind === 'fine') return Math.ceil(S / W) * H;
  const K = Math.min(model.iterations, H);
  const fine = Math.max(K, Math.ceil((S * fineJobs(K, H)) / W));
  return fine + S * H * (K + 1) * coarseToFine;
}

export function chooseAuto(load: PlanningLoad): AutoChoice {
  const candidates: PredictionModel[] = [{ kind: 'fine' }];
  for (let K = ITERATIONS_FOR_REAL_WORLD_ACCURACY; K < load.horizon; K++)
    candidates.push({ kind: 'parareal', iterations: K, tolerance: null, controlsPerSlice: 1 });
  const estimates = candidates.map((model) => ({ model, cost: estimateBatchCost(model, load) }));
  // Ties go to the fine model: it is exact.
  const best = estimates.reduce((a, b) => (b.cost < a.cost ? b : a));
  const fine = estimates[0]!;
  const name = (m: PredictionModel): string => (m.kind === 'parareal' ? `parareal:${m.iterations}` : m.kind);
  const reason =
    best === fine
      ? `auto: fine model (${load.sequences} sequences fill ${load.workers} worker(s); Parareal at K >= ${ITERATIONS_FOR_REAL_WORLD_ACCURACY} needs more fine work than that)`
      : `auto: ${name(best.model)} (expected ${best.cost.toFixed(1)} against ${fine.cost.toFixed(1)} fine-control times for the fine model on ${load.workers} workers)`;
  return { model: best.model, estimates, reason };
}

/** The concrete model for a request: `auto` resolved for this load, anything else as it is. */
export function resolveModel(
  request: ModelRequest,
  load: PlanningLoad,
): { model: PredictionModel; reason: string | null } {
  if (request.kind !== 'auto') return { model: request, reason: null };
  const c = chooseAuto(load);
  return { model: c.model, reason: c.reason };
}
