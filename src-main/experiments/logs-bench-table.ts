/**
 * docs/sessions.md's recorder-cost block, from `npm run bench -- logs` (bench/results/logs.json):
 * the lab's streams with and without a recorder, the recorder's share of a core against its goal,
 * log size per minute and the finalize time.
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable, fixed } from './bench-file';

const OVERHEAD = 'recorder overhead, % of a core (goal <= 2)';

const logsBenchSchema = z.object({
  machine: benchMachineSchema,
  seconds: z.number(),
  rates: z.object({ robotHz: z.number(), mocapHz: z.number(), plannerHz: z.number() }),
  rows: z
    .array(
      z.object({
        case: z.string(),
        'cpu s': z.number(),
        '% of a core': z.number(),
        messages: z.number().int(),
      }),
    )
    .min(1),
  result: z.object({
    [OVERHEAD]: z.number(),
    'record() call, us': z.number(),
    'log size, MB per minute': z.number(),
    'finalize (index) time, s': z.number(),
  }),
});

/** The block's Markdown. */
export const logsBenchTable = benchTable('logs', logsBenchSchema, (r, from) => {
  const x = r.result;
  return [
    `${r.seconds} s of ${r.rates.robotHz} Hz robot state, ${r.rates.mocapHz} Hz motion capture and ${r.rates.plannerHz} Hz planner steps, each case (${from}):`,
    '',
    '| case | CPU | share of a core | messages |',
    '| --- | --- | --- | --- |',
    ...r.rows.map(
      (c) => `| ${c.case} | ${fixed(c['cpu s'], 3)} s | ${fixed(c['% of a core'], 2)} % | ${c.messages} |`,
    ),
    '',
    `Recorder overhead ${fixed(x[OVERHEAD], 2)} % of a core (goal: at most 2 %), ${fixed(x['record() call, us'], 1)} us per \`record()\` call, ${fixed(x['log size, MB per minute'], 0)} MB of log per minute, finalize (index) ${fixed(x['finalize (index) time, s'], 2)} s.`,
  ];
});
