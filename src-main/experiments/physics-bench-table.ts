/**
 * docs/physics-and-parareal.md's physics block, from `npm run bench -- physics`: the cost of the
 * fine and coarse models (bench/results/physics.json), and how far each prediction setting lands
 * from the execution world (RK4 at 1 ms): on random off-centre pushes where physics.json holds that
 * part, and on each task's own recorded situations (`--task NAME`, bench/results/physics-NAME.json),
 * from which the tasks' prediction settings are chosen.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { benchMachineSchema, fixed, notMeasured, provenanceText, readBench } from './bench-file';

/** A blank cell: the bench writes '' where a row has no such figure (the paper's spread). */
const maybe = z.union([z.number(), z.literal('')]);

const accuracyRowSchema = z.object({
  prediction: z.string(),
  'cost vs reference': maybe,
  'mean diff mm': z.number(),
  'mean diff deg': z.number(),
  'max diff mm': maybe.optional(),
});
type AccuracyRow = z.infer<typeof accuracyRowSchema>;

const physicsBenchSchema = z.object({
  machine: benchMachineSchema,
  repeats: z.number().int(),
  rows: z
    .array(
      z.object({
        integrator: z.string(),
        sliders: z.number().int(),
        'fine ms/control': z.number(),
        'coarse us/control': z.number(),
        'fine/coarse': z.number(),
      }),
    )
    .min(1),
  accuracy: z.object({ pushes: z.number().int(), rows: z.array(accuracyRowSchema).min(1) }).optional(),
});

const taskAccuracySchema = z.object({
  machine: benchMachineSchema,
  task: z.string(),
  situations: z.number().int(),
  runs: z.array(z.string()),
  horizon: z.number().int(),
  rows: z.array(accuracyRowSchema).min(1),
});

/** Benches named physics-*.json that are not a task's accuracy (another bench's results). */
const NOT_TASK_ACCURACY = /^physics-(fit|lab)\b/;

const cell = (x: number | '' | undefined, digits: number): string =>
  x === undefined || x === '' ? '' : fixed(x, digits);

function accuracyTable(rows: readonly AccuracyRow[]): string[] {
  const withMax = rows.some((r) => r['max diff mm'] !== undefined);
  return [
    `| prediction | cost vs RK4 1 ms | mean difference (mm / deg)${withMax ? ' | largest (mm)' : ''} |`,
    `| --- | --- | ---${withMax ? ' | ---' : ''} |`,
    ...rows.map(
      (r) =>
        `| ${r.prediction} | ${cell(r['cost vs reference'], 3)} | ${fixed(r['mean diff mm'], 2)} / ${fixed(r['mean diff deg'], 2)}${withMax ? ` | ${cell(r['max diff mm'], 1)}` : ''} |`,
    ),
  ];
}

/** The block's Markdown. */
export function physicsBenchTable(root: string): string {
  const cost = readBench(root, 'physics', physicsBenchSchema);
  const lines: string[] = [];
  if (!cost) lines.push(notMeasured('physics'));
  else {
    lines.push(
      `Cost of one 1 s control, median of ${cost.repeats} repeats (${provenanceText('physics', cost.machine)}):`,
      '',
      '| fine integrator | sliders | fine model (ms) | coarse model (us) | fine / coarse |',
      '| --- | --- | --- | --- | --- |',
      ...cost.rows.map(
        (r) =>
          `| ${r.integrator} | ${r.sliders} | ${fixed(r['fine ms/control'], 1)} | ${fixed(r['coarse us/control'], 2)} | ${fixed(r['fine/coarse'], 0)} |`,
      ),
      '',
    );
    if (cost.accuracy)
      lines.push(
        `Final slider pose after ${cost.accuracy.pushes} random off-centre 4 s pushes of the isrr-obstacle cylinder, against RK4 at 1 ms:`,
        '',
        ...accuracyTable(cost.accuracy.rows),
        '',
      );
    else
      lines.push(
        "The committed `bench/results/physics.json` holds no accuracy part (its run predates it): the accuracy figures are the tasks' own, below.",
        '',
      );
  }
  const dir = path.join(root, 'bench/results');
  const tasks = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /^physics-.+\.json$/.test(f) && !NOT_TASK_ACCURACY.test(f))
        .map((f) => f.slice(0, -'.json'.length))
        .sort()
    : [];
  for (const name of tasks) {
    const t = readBench(root, name, taskAccuracySchema)!;
    lines.push(
      `**${t.task}**: ${t.situations} situations of ${t.runs.length} recorded fine-model runs, up to ${t.horizon} executed controls each, against RK4 at 1 ms without noise (${provenanceText(name, t.machine)}):`,
      '',
      ...accuracyTable(t.rows),
      '',
    );
  }
  return lines.join('\n').trimEnd();
}
