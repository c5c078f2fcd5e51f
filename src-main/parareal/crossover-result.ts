/**
 * The committed result of `npm run bench -- parareal-crossover` (bench/results/parareal-crossover.json):
 * the measured per-step costs that `auto` chooses by, the latencies measured on this machine beside
 * the cost model's, and the model's crossover. Read and validated here, by `auto` and by the
 * generated blocks of README.md and docs/physics-and-parareal.md (`npm run results`).
 */
import path from 'node:path';
import { z } from 'zod';
import { appRoot } from '../common/paths';
import { readStoredJson } from '../common/stored-json';
import { costConstantsSchema, type CostConstants } from './cost-model';

export const CROSSOVER_BENCH = 'parareal-crossover';

/** One prediction (one rollout) or one MPC step (the planner's whole batch of rollouts). */
export const crossoverKinds = ['prediction', 'step'] as const;
export type CrossoverKind = (typeof crossoverKinds)[number];

const rowSchema = z.object({
  kind: z.enum(crossoverKinds),
  model: z.string(),
  workers: z.number().int().min(1),
});

export const measuredRowSchema = rowSchema.extend({
  /** Median wall time (s) over repetitions and states, and its quartiles. */
  measured: z.number().positive(),
  q1: z.number().positive(),
  q3: z.number().positive(),
  samples: z.number().int().min(1),
  /** Fine jobs one prediction ran, mean (null for a step: the planner does not count them). */
  fineJobs: z.number().min(0).nullable(),
  /** One prediction: median distance of its final slider positions from the fine model's (mm; null for a step). */
  vsFineMm: z.number().min(0).nullable(),
  /**
   * How much the load stretched the work (the fine jobs' wall over CPU time, at least 1; median
   * over the samples): the model's constants are CPU times, so each sample is compared with the
   * model times its own stretch.
   */
  stretch: z.number().min(1),
  /** The cost model's latency for the same batch and workers, times each sample's stretch (median). */
  predicted: z.number().positive(),
  /** (predicted - measured) / measured. */
  error: z.number(),
});
export type MeasuredRow = z.infer<typeof measuredRowSchema>;

export const modelRowSchema = rowSchema.extend({ predicted: z.number().positive() });
export type ModelRow = z.infer<typeof modelRowSchema>;

const crossoverSchema = z.object({
  /**
   * By Parareal model (parareal:K, parareal:K/M-control-slices): the smallest worker count from
   * which it beats the fine model at every larger count (null: never up to maxWorkers).
   */
  byModel: z.record(z.string(), z.number().int().nullable()),
  /** The same for the best Parareal K >= 2 (the iterations that reach the real-world spread): auto's switch. */
  auto: z.number().int().nullable(),
});

export const crossoverResultSchema = z.object({
  machine: z.object({
    cpu: z.string(),
    cores: z.number().int(),
    date: z.string(),
    loadAtStart: z.number(),
  }),
  /** The machine's 1-minute load average at the end of the run (the start's is in machine). */
  loadAtEnd: z.number(),
  task: z.string(),
  horizon: z.number().int().min(1),
  /** Control sequences of one MPC step (the planner's batch, median over the measured steps). */
  stepSequences: z.number().int().min(1),
  /** Planner time of a step beyond its prediction (cost evaluation, sampling), s. */
  stepOverhead: z.number().min(0),
  states: z.number().int().min(1),
  repetitions: z.number().int().min(1),
  constants: costConstantsSchema,
  measured: z.array(measuredRowSchema),
  model: z.array(modelRowSchema),
  maxWorkers: z.number().int().min(1),
  crossover: z.object({ prediction: crossoverSchema, step: crossoverSchema }),
});
export type CrossoverResult = z.infer<typeof crossoverResultSchema>;

export const committedCrossoverFile = path.join(appRoot, 'bench', 'results', `${CROSSOVER_BENCH}.json`);

export function readCrossoverResult(file = committedCrossoverFile): CrossoverResult {
  return readStoredJson(file, crossoverResultSchema, { what: 'Parareal crossover bench result' });
}

let committed: CostConstants | undefined;

/** The per-step costs measured by the committed bench: what `auto` predicts latencies with. */
export function committedCostConstants(): CostConstants {
  committed ??= readCrossoverResult().constants;
  return committed;
}
