/**
 * docs/robot.md's benchmark block, from `npm run bench -- robot` (bench/results/robot.json): the
 * command loops' rate, jitter and acknowledgement latency, and the abort latency.
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable, fixed } from './bench-file';

const robotBenchSchema = z.object({
  machine: benchMachineSchema,
  seconds: z.number(),
  loops: z
    .array(
      z.object({
        loop: z.string(),
        commands: z.number().int(),
        'rate Hz': z.number(),
        'jitter p50 ms': z.number(),
        'jitter p99 ms': z.number(),
        'jitter max ms': z.number(),
        'ack p50 ms': z.number(),
        'ack p99 ms': z.number(),
      }),
    )
    .min(1),
  abort: z.object({
    aborts: z.number().int(),
    'p50 ms': z.number(),
    'p99 ms': z.number(),
    'max ms': z.number(),
  }),
});

/** The block's Markdown. */
export const robotBenchTable = benchTable('robot', robotBenchSchema, (r, from) => [
  `${r.seconds} s per loop, client and virtual controller in one Node process (${from}):`,
  '',
  '| loop | commands | rate | jitter p50 / p99 / max | send -> program acknowledges |',
  '| --- | --- | --- | --- | --- |',
  ...r.loops.map(
    (l) =>
      `| ${l.loop} | ${l.commands} | ${fixed(l['rate Hz'], 1)} Hz | ${fixed(l['jitter p50 ms'], 2)} / ${fixed(l['jitter p99 ms'], 2)} / ${fixed(l['jitter max ms'], 1)} ms | p50 ${fixed(l['ack p50 ms'], 1)} ms, p99 ${fixed(l['ack p99 ms'], 1)} ms |`,
  ),
  '',
  `Abort latency (\`stop()\` -> stop command decoded by the controller, ${r.abort.aborts} aborts while moving): p50 ${fixed(r.abort['p50 ms'], 3)} ms, p99 ${fixed(r.abort['p99 ms'], 2)} ms, max ${fixed(r.abort['max ms'], 1)} ms.`,
]);
