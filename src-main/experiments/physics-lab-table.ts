/**
 * docs/physics-fit.md's virtual-lab block, from `npm run bench -- physics-lab`'s committed result
 * (bench/results/physics-lab.json): each fitted parameter against the world's truth, the held-out
 * multi-step error before and after, the task runs with the scene's and the fitted physics, and the
 * issue's criteria judged from those numbers (physics-lab-criteria below).
 */
import { z } from 'zod';
import { benchMachineSchema, benchTable, provenanceText } from './bench-file';
import { meanCi95, meanCiText, wilsonInterval } from './stats';

const quantilesSchema = z.object({ p50: z.number(), p95: z.number(), rms: z.number() });
const errorSummarySchema = z.object({
  /** m */
  position: quantilesSchema,
  /** rad */
  yaw: quantilesSchema,
  count: z.number().int(),
});

const estimateSchema = z.object({
  parameter: z.string(),
  /** The world's value: a multiplier of the scene's, or latency in s. */
  truth: z.number(),
  value: z.number(),
  low: z.number(),
  high: z.number(),
  identifiable: z.boolean(),
});

const taskRunSchema = z.object({
  outcome: z.string(),
  taskTime: z.number().nullable(),
  actions: z.number().int(),
});

export const physicsLabResultSchema = z.object({
  machine: benchMachineSchema,
  scene: z.string(),
  command: z.string(),
  worlds: z.record(z.string(), z.unknown()),
  settings: z.object({
    probes: z.number().int(),
    heldOut: z.number().int(),
    runs: z.number().int(),
    bootstrap: z.number().int(),
  }),
  probes: z.record(z.string(), z.object({ runs: z.number().int(), rerun: z.number().int() })),
  fits: z.array(
    z.object({
      world: z.string(),
      estimates: z.array(estimateSchema),
      warnings: z.array(z.string()),
      heldOut: z
        .object({ runs: z.number().int(), before: errorSummarySchema, after: errorSummarySchema })
        .nullable(),
    }),
  ),
  taskRuns: z.array(z.object({ condition: z.string(), runs: z.array(taskRunSchema) })),
  /** s each stage took, by name. */
  stages: z.record(z.string(), z.number()),
});
export type PhysicsLabResult = z.infer<typeof physicsLabResultSchema>;
type Estimate = z.infer<typeof estimateSchema>;

/** The issue's bound on a recovered parameter: within 15 % of the world's value. */
export const RECOVERY_TOLERANCE = 0.15;
/** The held-out multi-step error must fall to at most this share of the scene's. */
export const HELD_OUT_RATIO = 0.5;

/**
 * The multi-step prediction error as the fit weighs it (lab-physics/fit.ts: 1 mm of position as
 * 1 degree of yaw): the root mean square of both over every object and control.
 */
export function poseRms(s: z.infer<typeof errorSummarySchema>): number {
  return Math.hypot(s.position.rms * 1000, (s.yaw.rms * 180) / Math.PI);
}

type TaskRuns = z.infer<typeof taskRunSchema>[];

/** Relative error of a multiplier, or the absolute one of latency (s). */
function errorOf(e: Estimate): number {
  return e.parameter === 'latency' ? e.value - e.truth : e.value / e.truth - 1;
}

/** Error relative to the world's value (latency's too; a latency against a world on time is off unless 0). */
function relativeError(e: Estimate): number {
  if (e.parameter !== 'latency') return errorOf(e);
  if (e.truth > 0) return errorOf(e) / e.truth;
  return e.value === 0 ? 0 : Infinity;
}

function errorText(e: Estimate): string {
  const err = errorOf(e);
  return e.parameter === 'latency' ? `${(err * 1000).toFixed(1)} ms` : `${(err * 100).toFixed(1)} %`;
}

const valueText = (parameter: string, v: number): string =>
  parameter === 'latency' ? `${(v * 1000).toFixed(1)} ms` : `x${v.toFixed(3)}`;

/** Whether each criterion holds, in words, from the result's numbers. */
export function physicsLabCriteria(
  r: PhysicsLabResult,
): { criterion: string; holds: boolean; why: string }[] {
  const out: { criterion: string; holds: boolean; why: string }[] = [];
  const differing = r.fits.find((f) => f.world === 'differing');
  const matching = r.fits.find((f) => f.world === 'matching');
  if (differing) {
    const identifiable = differing.estimates.filter((e) => e.identifiable);
    const off = identifiable.filter((e) => Math.abs(relativeError(e)) > RECOVERY_TOLERANCE);
    out.push({
      criterion: `every parameter the fit reports as determined is within ${RECOVERY_TOLERANCE * 100} % of the world's`,
      holds: identifiable.length > 0 && off.length === 0,
      why:
        identifiable.length === 0
          ? 'the fit determined no parameter'
          : identifiable.map((e) => `${e.parameter} ${errorText(e)}`).join(', '),
    });
    const held = differing.heldOut;
    if (held) {
      const ratio = poseRms(held.after) / poseRms(held.before);
      out.push({
        criterion: `the held-out multi-step prediction error (root mean square, 1 mm as 1 deg) falls to at most ${HELD_OUT_RATIO} of the scene physics'`,
        holds: ratio <= HELD_OUT_RATIO,
        why: `${poseRms(held.before).toFixed(2)} to ${poseRms(held.after).toFixed(2)} (${ratio.toFixed(2)})`,
      });
    }
  }
  const runs = (condition: string) => r.taskRuns.find((t) => t.condition === condition)?.runs;
  const [scene, fitted, reference] = [
    runs('differing lab, scene physics'),
    runs('differing lab, fitted physics'),
    runs('matching lab, scene physics'),
  ];
  if (scene && fitted && reference) {
    const ok = (xs: TaskRuns) => xs.filter((x) => x.outcome === 'finished');
    const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
    const time = (xs: TaskRuns): number =>
      mean(ok(xs).flatMap((x) => (x.taskTime === null ? [] : [x.taskTime])));
    const actions = (xs: TaskRuns): number => mean(ok(xs).map((x) => x.actions));
    const closer = (f: (xs: TaskRuns) => number): boolean =>
      Math.abs(f(fitted) - f(reference)) <= Math.abs(f(scene) - f(reference));
    out.push({
      criterion:
        "with the fitted physics on the differing lab: success not lower, task time and actions closer to the matching lab's than with the scene's physics",
      holds:
        ok(fitted).length / fitted.length >= ok(scene).length / scene.length &&
        closer(time) &&
        closer(actions),
      why: `success ${ok(scene).length}/${scene.length} to ${ok(fitted).length}/${fitted.length}; mean task time ${time(scene).toFixed(1)} s to ${time(fitted).toFixed(1)} s against ${time(reference).toFixed(1)} s; actions ${actions(scene).toFixed(1)} to ${actions(fitted).toFixed(1)} against ${actions(reference).toFixed(1)}; the task runs table gives each mean's interval`,
    });
  }
  if (matching) {
    const outside = matching.estimates.filter((e) => e.truth < e.low || e.truth > e.high);
    out.push({
      criterion: "on the matching world every fitted value is within its own 1-sigma interval of the scene's",
      holds: outside.length === 0,
      why:
        outside.length === 0
          ? 'all are'
          : `outside: ${outside.map((e) => `${e.parameter} ${valueText(e.parameter, e.value)} [${valueText(e.parameter, e.low)}, ${valueText(e.parameter, e.high)}]`).join(', ')}`,
    });
  }
  return out;
}

function fitTable(r: PhysicsLabResult): string[] {
  return [
    '| world | parameter | truth | fitted | 1-sigma interval | determined | error |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...r.fits.flatMap((f) =>
      f.estimates.map(
        (e) =>
          `| ${f.world} | ${e.parameter} | ${valueText(e.parameter, e.truth)} | ${valueText(e.parameter, e.value)} | [${valueText(e.parameter, e.low)}, ${valueText(e.parameter, e.high)}] | ${e.identifiable ? 'yes' : 'no'} | ${errorText(e)} |`,
      ),
    ),
  ];
}

function heldOutTable(r: PhysicsLabResult): string[] {
  const mm = (m: number): string => (m * 1000).toFixed(2);
  const deg = (rad: number): string => ((rad * 180) / Math.PI).toFixed(2);
  const rows = r.fits.flatMap((f) =>
    f.heldOut
      ? [
          `| ${f.world} | ${f.heldOut.runs} | ${f.heldOut.before.count} | ${poseRms(f.heldOut.before).toFixed(2)} / ${poseRms(f.heldOut.after).toFixed(2)} | ${mm(f.heldOut.before.position.p50)} / ${mm(f.heldOut.after.position.p50)} | ${mm(f.heldOut.before.position.p95)} / ${mm(f.heldOut.after.position.p95)} | ${mm(f.heldOut.before.position.rms)} / ${mm(f.heldOut.after.position.rms)} | ${deg(f.heldOut.before.yaw.p95)} / ${deg(f.heldOut.after.yaw.p95)} | ${deg(f.heldOut.before.yaw.rms)} / ${deg(f.heldOut.after.yaw.rms)} |`,
        ]
      : [],
  );
  if (rows.length === 0) return ['No run was held out.'];
  return [
    '| world | held-out runs | object-controls | RMS (1 mm as 1 deg), scene / fitted | position p50 mm | position p95 mm | position RMS mm | yaw p95 deg | yaw RMS deg |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ];
}

function taskTable(r: PhysicsLabResult): string[] {
  return [
    '| condition | runs | success [95 % Wilson] | task time s (successes, mean ± 95 % CI) | actions (successes) |',
    '| --- | --- | --- | --- | --- |',
    ...r.taskRuns.map(({ condition, runs }) => {
      const ok = runs.filter((x) => x.outcome === 'finished');
      const w = wilsonInterval(ok.length, runs.length);
      const times = ok.flatMap((x) => (x.taskTime === null ? [] : [x.taskTime]));
      const cell = (xs: number[]): string => (xs.length === 0 ? '–' : meanCiText(meanCi95(xs)));
      return `| ${condition} | ${runs.length} | ${ok.length}/${runs.length} [${(w.low * 100).toFixed(0)}, ${(w.high * 100).toFixed(0)}] % | ${cell(times)} | ${cell(ok.map((x) => x.actions))} |`;
    }),
  ];
}

/** The block: provenance, settings, the fit against the truth, held-out error, task runs, criteria. */
export const physicsLabTable = benchTable('physics-lab', physicsLabResultSchema, physicsLabLines);

/** The block's text for a result (the bench prints it as it writes the result). */
export const physicsLabText = (r: PhysicsLabResult): string =>
  physicsLabLines(r, provenanceText('physics-lab', r.machine)).join('\n');

function physicsLabLines(r: PhysicsLabResult, from: string): string[] {
  const probes = Object.entries(r.probes)
    .map(
      ([world, p]) =>
        `${p.runs} on the ${world} world${p.rerun > 0 ? ` (${p.rerun} run again after a stop)` : ''}`,
    )
    .join(', ');
  const stages = Object.entries(r.stages)
    .map(([stage, s]) => `${stage} ${(s / 60).toFixed(1)} min`)
    .join(', ');
  const warnings = r.fits.flatMap((f) => f.warnings.map((w) => `- ${f.world}: ${w}`));
  return [
    `From ${from}; scene \`${r.scene}\`, \`${r.command}\`.`,
    `Identification runs: ${probes}; ${r.settings.heldOut} of the differing world's held out; ${r.settings.bootstrap} bootstrap refits; ${r.settings.runs} task runs per condition. Stages: ${stages}.`,
    '',
    ...fitTable(r),
    '',
    ...(warnings.length > 0 ? ['The fit’s warnings:', '', ...warnings, ''] : []),
    'Held-out multi-step prediction error (windows of 3 controls in which the pusher reaches an object):',
    '',
    ...heldOutTable(r),
    '',
    ...taskTable(r),
    '',
    'Criteria:',
    '',
    ...physicsLabCriteria(r).map(
      (c) => `- ${c.holds ? '**holds**' : '**does not hold**'}: ${c.criterion} (${c.why}).`,
    ),
  ];
}
