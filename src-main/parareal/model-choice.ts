/**
 * The `auto` prediction model: fine or Parareal, whichever is expected to predict a planner's
 * batch of sequences sooner at the accuracy the task needs, given the workers at hand.
 *
 * Expected from the measured cost model (cost-model.ts): the pool's and Parareal's schedule
 * replayed with the per-step costs that `npm run bench -- parareal-crossover` measured and
 * committed (bench/results/parareal-crossover.json). The fine model runs a sequence as one job;
 * Parareal at K >= 2 runs 2H - 1 or more one-control jobs a sequence, each with its own overhead,
 * and its main thread's share grows with the batch. So Parareal pays only once the workers
 * outnumber what the fine model alone can use, by the factor its extra work takes; the committed
 * bench states that worker count and a test holds auto's switch to it.
 */
import { parsePredictionModel, type PredictionModel } from './predictor';
import type { CoarseModelKind, ModelRequestKind } from '#contract/planner-settings';
import { pararealModel, predictLatency, type CostConstants } from './cost-model';
import { committedCostConstants } from './crossover-result';

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

export interface ModelEstimate {
  model: PredictionModel;
  /** Expected wall time of one batch (s). */
  cost: number;
}

export interface AutoChoice {
  model: PredictionModel;
  estimates: ModelEstimate[];
  /** One line for the operator and the log: what was chosen and why. */
  reason: string;
}

export function chooseAuto(
  load: PlanningLoad,
  constants: CostConstants = committedCostConstants(),
): AutoChoice {
  const candidates: PredictionModel[] = [{ kind: 'fine' }];
  for (let K = ITERATIONS_FOR_REAL_WORLD_ACCURACY; K < load.horizon; K++) candidates.push(pararealModel(K));
  const estimates = candidates.map((model) => ({ model, cost: predictLatency(model, load, constants) }));
  // Ties go to the fine model: it is exact.
  const best = estimates.reduce((a, b) => (b.cost < a.cost ? b : a));
  const fine = estimates[0]!;
  const ms = (s: number): string => (s * 1000).toFixed(0);
  const name = (m: PredictionModel): string => (m.kind === 'parareal' ? `parareal:${m.iterations}` : m.kind);
  const reason =
    best === fine
      ? `auto: fine model (${load.sequences} sequences on ${load.workers} worker(s): expected ${ms(fine.cost)} ms, Parareal at K >= ${ITERATIONS_FOR_REAL_WORLD_ACCURACY} no sooner)`
      : `auto: ${name(best.model)} (expected ${ms(best.cost)} ms against ${ms(fine.cost)} ms for the fine model on ${load.workers} workers)`;
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
