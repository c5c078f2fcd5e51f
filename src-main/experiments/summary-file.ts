/**
 * An experiment's per-model summary as report.ts stores it in summary.json, read back by the
 * results page, and the part of it a noise sweep keeps per level (sweep.ts): one schema for both,
 * and the table cells both print.
 */
import { z } from 'zod';
import { meanCiText } from './stats';

/**
 * A mean with its 95% CI half-width and sample count (stats.meanCi95) as stored: JSON turns the
 * NaN mean of no samples into null. Summaries written before the count was recorded lack n.
 */
export const storedMeanCiSchema = z
  .object({
    mean: z.number().nullable(),
    ci95: z.number().nullable(),
    n: z.number().int().optional(),
  })
  .strict();
export type StoredMeanCi = z.infer<typeof storedMeanCiSchema>;

/** One model's row of summary.json (report.ModelSummary as stored). */
export const summaryRowSchema = z.object({
  model: z.string(),
  runs: z.number().int(),
  successes: z.number().int(),
  successRate: z.number(),
  /** 95% Wilson interval of the success rate. */
  successLow: z.number(),
  successHigh: z.number(),
  /** Task time of successful runs (s). */
  taskTime: storedMeanCiSchema,
  /** Task time of all runs, a failure counted at the time it ended (s). */
  taskTimeAll: storedMeanCiSchema,
  planningPerStep: storedMeanCiSchema.extend({ max: z.number().nullable() }),
  actions: storedMeanCiSchema,
  outcomes: z.record(z.string(), z.number().int()),
});
export type SummaryRow = z.infer<typeof summaryRowSchema>;

/** An experiment's summary.json as report.ts writes it. */
export const summaryFileSchema = z.object({
  task: z.string(),
  planner: z.string(),
  workers: z.number().int(),
  controlDuration: z.number(),
  scenes: z.number().int(),
  models: z.array(summaryRowSchema),
});
export type SummaryFile = z.infer<typeof summaryFileSchema>;

/** The success and task-time part of a row: what a noise sweep keeps per level and model. */
export const successRowSchema = summaryRowSchema
  .pick({
    model: true,
    runs: true,
    successes: true,
    successRate: true,
    successLow: true,
    successHigh: true,
    taskTime: true,
    taskTimeAll: true,
  })
  .strict();
export type SuccessRow = z.infer<typeof successRowSchema>;

/** A row's success and task-time fields alone, to store as a SuccessRow. */
export function successRowOf(row: SuccessRow): SuccessRow {
  const { model, runs, successes, successRate, successLow, successHigh, taskTime, taskTimeAll } = row;
  return { model, runs, successes, successRate, successLow, successHigh, taskTime, taskTimeAll };
}

export const pct = (v: number): string => `${(100 * v).toFixed(0)}%`;

/** "27/30 = 90% (74%–97%)": successes of runs, the rate and its 95% Wilson interval. */
export const successText = (r: SuccessRow): string =>
  `${r.successes}/${r.runs} = ${pct(r.successRate)} (${pct(r.successLow)}–${pct(r.successHigh)})`;

/** A stored mean ± 95% CI with d decimals; "–" where there were no samples. */
export const meanCiCell = (m: StoredMeanCi, d = 1): string =>
  m.mean === null
    ? '–'
    : meanCiText({ mean: m.mean, ci95: m.ci95 ?? 0, ...(m.n === undefined ? {} : { n: m.n }) }, d);
