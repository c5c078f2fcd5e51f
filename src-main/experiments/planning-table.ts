/**
 * The planning-time table of docs/results.md and the README: one row per shipped task and model
 * from the planner bench's files (`npm run bench -- planner --task NAME` writes
 * bench/results/planner-NAME.json), the plan's wall time per step against the control it must fit
 * in, so the figure is the bench's, never typed by hand.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readStoredJson } from '../common/stored-json';

/** The parts of a planner-NAME.json the table reads (bench/planner.ts writes more). */
export const plannerBenchFileSchema = z.object({
  machine: z.object({
    cores: z.number().int().positive(),
    /** Absent in files written before the bench recorded it. */
    loadAtStart: z.number().min(0).optional(),
  }),
  task: z.string(),
  planner: z.string(),
  steps: z.number().int().positive(),
  rows: z
    .array(
      z.object({
        model: z.string(),
        workers: z.number().int().positive(),
        'plan s/step': z.number().nonnegative(),
        '±95%': z.number().nonnegative(),
        'control s': z.number().positive(),
      }),
    )
    .min(1),
});
export type PlannerBenchFile = z.infer<typeof plannerBenchFileSchema>;

const BENCH_FILE = /^planner-(.+)\.json$/;

/** Every planner-NAME.json under `dir`, by task name; a file that does not parse names itself. */
export function readPlannerBenches(dir: string): PlannerBenchFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => BENCH_FILE.test(f))
    .sort()
    .map((f) => {
      const file = path.join(dir, f);
      const bench = readStoredJson(file, plannerBenchFileSchema, { what: 'planner bench' });
      if (bench.task !== BENCH_FILE.exec(f)![1])
        throw new Error(`${file}: holds task "${bench.task}", not the one its name says`);
      return bench;
    });
}

const load = (b: PlannerBenchFile): string =>
  b.machine.loadAtStart === undefined ? '–' : b.machine.loadAtStart.toFixed(1);

const planCell = (r: PlannerBenchFile['rows'][number]): string =>
  `${r['plan s/step'].toFixed(2)} ± ${r['±95%'].toFixed(2)}`;
const fitsCell = (r: PlannerBenchFile['rows'][number]): string =>
  r['plan s/step'] <= r['control s'] ? 'yes' : 'no';

/**
 * Markdown table: task, planner, model, workers, plan s/step (mean ± 95% over the bench's recorded
 * states), control s, whether the mean fits in the control, and the machine's load when the bench
 * started (a load near or above its cores inflates every wall time).
 */
export function planningTable(benches: readonly PlannerBenchFile[]): string {
  const rows = benches.flatMap((b) =>
    b.rows.map(
      (r) =>
        `| ${b.task} | ${b.planner} | ${r.model} | ${r.workers} | ${planCell(r)} | ${r['control s']} | ${fitsCell(r)} | ${b.steps} | ${load(b)} |`,
    ),
  );
  return [
    '| task | planner | model | workers | plan s/step (95%) | control s | within control | states | load at start |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The README's short form: each task's first row (its default model), the columns that decide real time. */
export function readmePlanningTable(benches: readonly PlannerBenchFile[]): string {
  return [
    '| task | planner | plan s/step (95%) | control s | within control |',
    '| --- | --- | --- | --- | --- |',
    ...benches.map((b) => {
      const r = b.rows[0]!;
      return `| ${b.task} | ${b.planner} | ${planCell(r)} | ${r['control s']} | ${fitsCell(r)} |`;
    }),
  ].join('\n');
}
