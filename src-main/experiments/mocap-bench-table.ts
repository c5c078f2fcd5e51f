/**
 * docs/motion-capture.md's benchmark block, from `npm run bench -- mocap`
 * (bench/results/mocap.json): frames decoded per second, and the latency from the virtual server's
 * send to the client's scene-state update over loopback.
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable, fixed } from './bench-file';

const mocapBenchSchema = z.object({
  machine: benchMachineSchema,
  seconds: z.number(),
  decode: z
    .array(
      z.object({
        frame: z.string(),
        natnet: z.string(),
        bytes: z.number().int(),
        'frames/s': z.number(),
        '±95%': z.number(),
      }),
    )
    .min(1),
  latency: z
    .array(
      z.object({
        mode: z.string(),
        natnet: z.string(),
        frames: z.number().int(),
        'frame rate Hz': z.number(),
        'median ms': z.number(),
        'p99 ms': z.number(),
        'max ms': z.number(),
        dropped: z.number().int(),
      }),
    )
    .min(1),
});

/** Thousands of frames per second, rounded. */
const kilo = (x: number): string => `${fixed(x / 1000, 0)}k`;

/** The block's Markdown. */
export const mocapBenchTable = benchTable('mocap', mocapBenchSchema, (r, from) => [
  `${from}.`,
  '',
  `| frame decoded | NatNet | bytes | frames per second (${r.seconds} s, 95%) |`,
  '| --- | --- | --- | --- |',
  ...r.decode.map(
    (d) => `| ${d.frame} | ${d.natnet} | ${d.bytes} | ${kilo(d['frames/s'])} ± ${kilo(d['±95%'])} |`,
  ),
  '',
  '| server send -> scene-state update | NatNet | frames | rate | median | p99 | max | dropped |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...r.latency.map(
    (l) =>
      `| ${l.mode} | ${l.natnet} | ${l.frames} | ${fixed(l['frame rate Hz'], 1)} Hz | ${fixed(l['median ms'], 2)} ms | ${fixed(l['p99 ms'], 2)} ms | ${fixed(l['max ms'], 1)} ms | ${l.dropped} |`,
  ),
]);
