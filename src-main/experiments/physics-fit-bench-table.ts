/**
 * docs/physics-fit.md's fit-time block, from `npm run bench -- physics-fit`'s committed result
 * (bench/results/physics-fit.json): the wall time of `physics fit` on simulated lab logs and on
 * how many fine workers, its time per evaluation and what it fitted.
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable } from './bench-file';

const physicsFitResultSchema = z.object({
  machine: benchMachineSchema,
  fit: z.object({
    runs: z.number().int(),
    workers: z.number().int(),
    evaluations: z.number().int(),
    'fit s': z.number(),
    's / evaluation': z.number(),
    'friction x': z.number(),
    'table x': z.number(),
    'held-out p50 before mm': z.number(),
    'held-out p50 after mm': z.number(),
  }),
});

/** The block's Markdown. */
export const physicsFitBenchTable = benchTable('physics-fit', physicsFitResultSchema, (r, from) => {
  const f = r.fit;
  return [
    `From ${from}: ${f.runs} simulated lab logs of five pushes each (a world with twice the scene's object friction), object and table friction fitted on ${f.workers} fine workers.`,
    '',
    '| runs | workers | evaluations | fit time | per evaluation | friction fitted (truth x2) | table fitted (truth x1) | held-out position p50, scene / fitted |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${f.runs} | ${f.workers} | ${f.evaluations} | ${f['fit s'].toFixed(1)} s | ${f['s / evaluation'].toFixed(2)} s | x${f['friction x'].toFixed(3)} | x${f['table x'].toFixed(3)} | ${f['held-out p50 before mm'].toFixed(2)} mm / ${f['held-out p50 after mm'].toFixed(2)} mm |`,
  ];
});
