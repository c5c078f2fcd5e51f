/**
 * docs/console.md's abort-latency block, from `npm run bench -- console`
 * (bench/results/console.json): from `run.abort` reaching the core to the stop written by the
 * client and decoded by the virtual controller, against the bench's target.
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable, fixed } from './bench-file';

const consoleBenchSchema = z.object({
  machine: benchMachineSchema,
  /** s */
  target: z.number(),
  rows: z
    .array(
      z
        .object({
          stage: z.string(),
          aborts: z.number().int(),
          'p50 ms': z.number(),
          'p90 ms': z.number(),
          'max ms': z.number(),
        })
        // "within N ms", N the target
        .catchall(z.unknown()),
    )
    .min(1),
});

/** The block's Markdown. */
export const consoleBenchTable = benchTable('console', consoleBenchSchema, (r, from) => [
  `From \`run.abort\` reaching the core to the stop, over dry runs on the virtual lab (${from}):`,
  '',
  `| stage | aborts | p50 | p90 | max | within ${Math.round(r.target * 1000)} ms |`,
  '| --- | --- | --- | --- | --- | --- |',
  ...r.rows.map((s) => {
    const within = z.string().parse(s[`within ${Math.round(r.target * 1000)} ms`], {
      error: () => `${s.stage}: no "within ${Math.round(r.target * 1000)} ms"`,
    });
    return `| ${s.stage} | ${s.aborts} | ${fixed(s['p50 ms'], 2)} ms | ${fixed(s['p90 ms'], 2)} ms | ${fixed(s['max ms'], 2)} ms | ${within} |`;
  }),
]);
