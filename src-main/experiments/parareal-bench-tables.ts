/**
 * docs/physics-and-parareal.md's ISRR 2019 Fig. 5 and Fig. 6 blocks, from `npm run bench --
 * parareal` (bench/results/parareal.json): each iterate's distance from the fine model's final
 * slider pose beside the fine model's own floor (Fig. 5), and the wall time of one prediction by
 * the fine model and Parareal K = 1..4 against the worker count with the model's theory (Fig. 6).
 * Each part carries its own machine stamp (bench/report.ts keeps an earlier part's when a run redoes
 * only another), so a block dates its own part, and Fig. 6 says when its timings predate a change
 * that moves them.
 */
import { z } from 'zod';
import { benchMachineSchema, fixed, notMeasured, provenanceText, readBench } from './bench-file';

/**
 * The change after which Parareal's fine solves take other contacts (the authors' pusher friction,
 * commit 920ca02): timings recorded before it are of the older physics.
 */
export const PUSHER_FRICTION_CHANGE = { commit: '920ca02', date: '2026-11-23T09:00:49Z' } as const;

const K_RANGE = [0, 1, 2, 3, 4] as const;

const poseRowSchema = z
  .object({ push: z.string(), 'floor mm': z.number(), 'floor deg': z.number() })
  .catchall(z.number());

const pararealBenchSchema = z.object({
  machine: benchMachineSchema,
  fig5: z
    .object({
      machine: benchMachineSchema.optional(),
      poseRows: z.array(poseRowSchema).min(1),
      floorShift: z.number(),
    })
    .optional(),
  fig6: z
    .object({
      machine: benchMachineSchema.optional(),
      runs: z.number().int(),
      cores: z.number().int(),
      rows: z
        .array(
          z.object({
            W: z.number().int(),
            model: z.string(),
            'wall ms': z.number(),
            '+-95%': z.number(),
            speedup: z.number(),
            theory: z.number(),
          }),
        )
        .min(1),
    })
    .optional(),
});

const read = (root: string) => readBench(root, 'parareal', pararealBenchSchema);

/** The Fig. 5 block: the pose part of each iterate's distance from the fine model, K = 0..4. */
export function fig5Table(root: string): string {
  const result = read(root);
  const fig5 = result?.fig5;
  if (!result || !fig5) return notMeasured('parareal', 'npm run bench -- parareal fig5');
  const k = (row: z.infer<typeof poseRowSchema>, K: number, unit: 'mm' | 'deg'): string => {
    const v = row[`k=${K} ${unit}`];
    if (typeof v !== 'number') throw new Error(`parareal.json fig5: ${row.push} has no k=${K} ${unit}`);
    return fixed(v, 2);
  };
  return [
    `Distance of each iterate's final slider pose from the fine model's (mm / deg), and the fine model's own floor: the fine trajectory against itself started with the pusher ${fixed(fig5.floorShift * 1000, 1)} mm to the side (${provenanceText('parareal', fig5.machine ?? result.machine)}):`,
    '',
    `| push | ${K_RANGE.map((K) => `K = ${K}`).join(' | ')} | fine floor |`,
    `| --- | ${K_RANGE.map(() => '---').join(' | ')} | --- |`,
    ...fig5.poseRows.map(
      (r) =>
        `| ${r.push} | ${K_RANGE.map((K) => `${k(r, K, 'mm')} / ${k(r, K, 'deg')}`).join(' | ')} | ${fixed(r['floor mm'], 2)} / ${fixed(r['floor deg'], 2)} |`,
    ),
  ].join('\n');
}

/** The Fig. 6 block: one prediction's wall time and speedup against the worker count W. */
export function fig6Table(root: string): string {
  const result = read(root);
  const fig6 = result?.fig6;
  if (!result || !fig6) return notMeasured('parareal', 'npm run bench -- parareal fig6');
  // A part of the latest run carries no stamp of its own: the file's is its (bench/report.ts earlierParts).
  const machine = fig6.machine ?? result.machine;
  const before = Date.parse(machine.date) < Date.parse(PUSHER_FRICTION_CHANGE.date);
  return [
    `Wall time of one 4 s prediction (4 slices of one control) on W fine workers, ${fig6.runs} runs each, mean ± 95% interval; speedup over the fine model at the same W, and the cost model's theory for it (${provenanceText('parareal', machine)}).${before ? ` **These timings predate the pusher-friction change (commit ${PUSHER_FRICTION_CHANGE.commit})**: they are of the older physics, and \`npm run bench -- parareal fig6\` measures them again.` : ''} They are this machine's own; the paper's absolute times, on other hardware, are not compared here.`,
    '',
    '| W | model | wall time (ms) | speedup | theory |',
    '| --- | --- | --- | --- | --- |',
    ...fig6.rows.map(
      (r) =>
        `| ${r.W} | ${r.model} | ${fixed(r['wall ms'], 1)} ± ${fixed(r['+-95%'], 1)} | ${fixed(r.speedup, 2)} | ${fixed(r.theory, 2)} |`,
    ),
  ].join('\n');
}
