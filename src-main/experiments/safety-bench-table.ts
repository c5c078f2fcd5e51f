/**
 * docs/safety.md's safety-thread block, from `npm run bench -- safety` (bench/results/safety.json):
 * the tick lateness of the safety thread and of a probe on the main thread during console dry runs
 * with CPU-bound processes beside them, the thread's priority, staleness stops and frame gaps.
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable, fixed } from './bench-file';

const safetyBenchSchema = z.object({
  machine: benchMachineSchema,
  /** s */
  tick: z.number(),
  seconds: z.number(),
  hogs: z.number().int(),
  scene: z.string(),
  threadPriority: z.object({ raised: z.boolean(), nice: z.number().int().optional() }),
  frameGaps: z.object({ ticks: z.number().int(), p50: z.number(), p99: z.number(), max: z.number() }),
  runs: z.array(z.object({ outcome: z.string(), reason: z.string().optional() })),
  rows: z
    .array(
      z.object({
        where: z.string(),
        ticks: z.number().int(),
        p50: z.number(),
        p99: z.number(),
        max: z.number(),
        'staleness stops': z.number().int().optional(),
      }),
    )
    .min(1),
});

/** The block's Markdown. */
export const safetyBenchTable = benchTable('safety', safetyBenchSchema, (r, from) => {
  const priority = r.threadPriority.raised
    ? `safety thread at nice ${r.threadPriority.nice ?? '(not recorded)'}`
    : 'safety thread at normal priority (raising it was refused)';
  const g = r.frameGaps;
  return [
    `${r.seconds} s of console dry runs on \`${r.scene}\`, ${r.hogs} CPU-bound processes beside them, ${priority} (${from}). Lateness: how much longer than its ${Math.round(r.tick * 1000)} ms period each tick waited.`,
    '',
    '| clock | ticks | lateness p50 | p99 | max | staleness stops |',
    '| --- | --- | --- | --- | --- | --- |',
    ...r.rows.map(
      (row) =>
        `| ${row.where} | ${row.ticks} | ${fixed(row.p50, 2)} ms | ${fixed(row.p99, 2)} ms | ${fixed(row.max, 1)} ms | ${row['staleness stops'] ?? '–'} |`,
    ),
    '',
    `Motion-capture frames as they reached the thread: ${g.ticks} gaps, p50 ${fixed(g.p50, 1)} ms, p99 ${fixed(g.p99, 1)} ms, max ${fixed(g.max, 1)} ms apart. Dry runs in the window: ${r.runs.length} (${r.runs.map((x) => x.reason ?? x.outcome).join('; ')}).`,
  ];
});
