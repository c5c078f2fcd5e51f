/**
 * `npm run bench -- parareal-crossover [--states N] [--reps N] [--workers W,...] [--max-workers N]`:
 * where Parareal pays. On isrr-obstacle (its planner's prediction settings, states along its
 * committed fine-model runs), the wall time of
 * - one prediction: one sequence of the horizon's controls (the run's own next controls), and
 * - one MPC step: the planner's step, which predicts its whole batch of rollouts at once,
 * for the fine model (rollout-parallel: one job per sequence), Parareal K = 1..3 and the variant
 * tried for paying earlier (K = 1 over slices of 2 controls), each prediction's distance from the
 * fine model's beside it, on W = 1..cores
 * workers (default; `--workers` for others). Each figure is the median over `--reps` rounds of
 * `--states` states, the models taking turns within a round so that load from other programs falls
 * on all of them alike; the 1-minute load average is recorded at the start and the end, and each
 * sample's stretch by the load (its fine jobs' wall over CPU time) beside its wall time.
 *
 * The same run measures the cost model's constants (cost-model.ts) on one worker: the fine work
 * per control and per job from the workers' own clocks, the main thread's CPU time per job and per
 * coarse control, and the hand-over time no process's clock shows. The model then predicts every
 * measured figure (the table's error column) and every worker count up to `--max-workers`, and the
 * crossover: from which W Parareal K beats the fine model. Writes
 * bench/results/parareal-crossover.json (read by `auto` and by `npm run results`, which draws
 * docs/parareal-crossover.svg and the generated blocks of README.md and docs/physics-and-parareal.md).
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { layoutForScene, type Control, type State } from '#contract/state';
import { FinePool } from '../src-main/parareal/fine-pool';
import type { PredictionTiming } from '../src-main/parareal/parareal';
import { createPredictor, type PredictionModel } from '../src-main/parareal/predictor';
import {
  crossoverWorkers,
  fineJobs,
  pararealModel,
  predictLatency,
  type CostConstants,
} from '../src-main/parareal/cost-model';
import {
  CROSSOVER_BENCH,
  crossoverResultSchema,
  type CrossoverKind,
  type CrossoverResult,
  type MeasuredRow,
  type ModelRow,
} from '../src-main/parareal/crossover-result';
import { chooseAuto } from '../src-main/parareal/model-choice';
import { loadTaskFile } from '../src-main/planning/task-file';
import { createTaskRun } from '../src-main/planning/task-run';
import { recordedStates } from './planner';
import { machineInfo, printTable, writeResult, type Row } from './report';

const TASK = 'isrr-obstacle';
const ITERATIONS = [1, 2, 3];
/** Worker counts the model's table and chart show (the crossover is searched over every count). */
export const MODEL_WORKERS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128];

export interface CrossoverArgs {
  states: number;
  reps: number;
  workers: number[];
  maxWorkers: number;
}

export function parseCrossoverArgs(args: readonly string[]): CrossoverArgs {
  const opts = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i]!;
    const value = args[i + 1];
    if (!['--states', '--reps', '--workers', '--max-workers'].includes(key) || value === undefined)
      throw new Error(
        `parareal-crossover [--states N] [--reps N] [--workers W,...] [--max-workers N]: cannot read "${args.join(' ')}"`,
      );
    opts.set(key, value);
  }
  const cores = Math.max(2, os.availableParallelism());
  const out: CrossoverArgs = {
    states: Number(opts.get('--states') ?? 4),
    // 4 states x 4 rounds: about 5 minutes on two idle cores.
    reps: Number(opts.get('--reps') ?? 4),
    workers: (opts.get('--workers') ?? Array.from({ length: cores }, (_, i) => i + 1).join(','))
      .split(',')
      .map(Number),
    maxWorkers: Number(opts.get('--max-workers') ?? 128),
  };
  for (const [name, v] of [
    ['--states', out.states],
    ['--reps', out.reps],
    ['--max-workers', out.maxWorkers],
    ...out.workers.map((w) => ['--workers', w] as const),
  ] as const)
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be whole numbers >= 1`);
  if (!out.workers.includes(1)) throw new Error('--workers must include 1: the constants are measured there');
  return out;
}

/**
 * The fine model, Parareal K = 1..3 as the planner runs it (one control per slice), and the
 * variant tried for paying earlier: K = 1 over slices of 2 controls (half the jobs and messages of
 * one-control slices, the first two controls exact as with K = 2, the fine model's work).
 */
const MODELS: PredictionModel[] = [
  { kind: 'fine' },
  ...ITERATIONS.map((K) => pararealModel(K)),
  pararealModel(1, 2),
];
export const spec = (m: PredictionModel): string =>
  m.kind !== 'parareal'
    ? m.kind
    : `parareal:${m.iterations}${m.controlsPerSlice > 1 ? `/${m.controlsPerSlice}-control-slices` : ''}`;

/** One timed prediction or step, with what the constants are fitted from. */
interface Sample {
  wall: number;
  /** Main-thread CPU time (s). */
  mainCpu: number;
  timing: PredictionTiming | null;
  /** MPC step: its batch size and prediction wall time. */
  sequences: number;
  prediction: number;
  /** One prediction: how far its final slider poses lie from the fine model's (m; null for a step). */
  vsFine: number | null;
  /**
   * How much other programs stretched the work meanwhile: the fine jobs' wall time over their CPU
   * time (at least 1), of the prediction's own jobs, or for a step of the round's predictions.
   */
  stretch: number;
}

/** Wall over CPU time of the fine jobs of these predictions (1 when there were none). */
export function jobStretch(timings: readonly PredictionTiming[]): number {
  const wall = timings.reduce((a, t) => a + t.fineJobTimes.reduce((x, y) => x + y, 0), 0);
  const cpu = timings.reduce((a, t) => a + t.fineWork.cpu, 0);
  return cpu > 0 ? Math.max(1, wall / cpu) : 1;
}

const median = (xs: readonly number[]): number => quantile(xs, 0.5);
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; wall: number; mainCpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { value, wall, mainCpu: (c.user + c.system) / 1e6 };
}

/**
 * The constants from the one-worker samples: fine work per control and per job from the CPU
 * times of H-control (fine) and one-control (Parareal) jobs, the main thread's time per job and
 * per coarse control, and the hand-over time of a lone fine job.
 */
export function fitConstants(
  fine: readonly Sample[],
  parareal: readonly { K: number; sample: Sample }[],
  horizon: number,
): CostConstants {
  // CPU time, not the workers' wall clocks: other programs on the cores stretch the latter.
  const perJob = (s: Sample): number => s.timing!.fineWork.cpu / s.timing!.fineJobs;
  const long = median(fine.map(perJob));
  const short = median(parareal.map((p) => perJob(p.sample)));
  const fineControl = Math.max((long - short) / (horizon - 1), 1e-9);
  const fineJob = Math.max(0, short - fineControl);
  // Iteration 0 sweeps every slice with the coarse model; iteration k sweeps slices k..N-1 again.
  const coarseControls = (K: number): number => horizon + fineJobs(K, horizon) - Math.min(K, horizon);
  const coarseControl = median(parareal.map((p) => p.sample.timing!.coarseTime / coarseControls(p.K)));
  const mainPerJob = median(
    parareal.map(
      (p) => Math.max(0, p.sample.mainCpu - p.sample.timing!.coarseTime) / p.sample.timing!.fineJobs,
    ),
  );
  // A lone job's wall time beyond the worker's own clock and the main thread's work, taken back by
  // the load's stretch (waiting for a core stretches as the jobs do); the lower quartile, as other
  // programs' load only ever adds to it.
  const transit = Math.max(
    0,
    quantile(
      fine.map((s) => (s.wall - s.timing!.fineJobTimes[0]!) / s.stretch - mainPerJob),
      0.25,
    ),
  );
  return { fineControl, fineJob, mainPerJob, transit, coarseControl };
}

/** Every measured figure with the model's, and the model over `MODEL_WORKERS` and the crossovers. */
export function modelResult(
  samples: Map<string, Sample[]>,
  constants: CostConstants,
  horizon: number,
  stepSequences: number,
  stepOverhead: number,
  maxWorkers: number,
): Pick<CrossoverResult, 'measured' | 'model' | 'crossover'> {
  const shape = (kind: CrossoverKind): { sequences: number; horizon: number } => ({
    sequences: kind === 'prediction' ? 1 : stepSequences,
    horizon,
  });
  const predicted = (kind: CrossoverKind, model: PredictionModel, workers: number): number =>
    predictLatency(model, { ...shape(kind), workers }, constants) + (kind === 'step' ? stepOverhead : 0);
  const measured: MeasuredRow[] = [];
  for (const [key, list] of samples) {
    const [kind, model, w] = key.split(' ') as [CrossoverKind, string, string];
    const workers = Number(w);
    const walls = list.map((s) => s.wall);
    const m = median(walls);
    // The model for an idle machine, stretched as each sample's work was.
    const idle = predicted(
      kind,
      MODELS.find((x) => spec(x) === model)!,
      workers,
    );
    const p = median(list.map((s) => idle * s.stretch));
    const stretch = median(list.map((s) => s.stretch));
    measured.push({
      kind,
      model,
      workers,
      measured: m,
      q1: quantile(walls, 0.25),
      q3: quantile(walls, 0.75),
      samples: list.length,
      fineJobs: kind === 'step' ? null : list.reduce((a, s) => a + s.timing!.fineJobs, 0) / list.length,
      vsFineMm: kind === 'step' ? null : median(list.map((s) => s.vsFine!)) * 1000,
      stretch,
      predicted: p,
      error: (p - m) / m,
    });
  }
  const model: ModelRow[] = [];
  for (const kind of ['prediction', 'step'] as const)
    for (const workers of MODEL_WORKERS.filter((w) => w <= maxWorkers))
      for (const m of MODELS)
        model.push({ kind, model: spec(m), workers, predicted: predicted(kind, m, workers) });
  const every = Array.from({ length: maxWorkers }, (_, i) => i + 1);
  const crossover = (kind: CrossoverKind): CrossoverResult['crossover']['step'] => {
    const byModel: Record<string, number | null> = {};
    for (const m of MODELS)
      if (m.kind === 'parareal') byModel[spec(m)] = crossoverWorkers(m, shape(kind), constants, every);
    // auto's own rule, worker count by worker count: from where on does it pick Parareal?
    let auto: number | null = null;
    for (const workers of every) {
      const picks = chooseAuto({ ...shape(kind), workers }, constants).model.kind === 'parareal';
      if (picks) auto ??= workers;
      else auto = null;
    }
    return { byModel, auto };
  };
  return { measured, model, crossover: { prediction: crossover('prediction'), step: crossover('step') } };
}

export async function run(args: string[]): Promise<void> {
  const a = parseCrossoverArgs(args);
  const { task, scene: baseScene } = loadTaskFile(path.resolve(`resources/tasks/${TASK}.json`));
  const p = task.planner;
  const H = p.horizon;
  const segments = recordedStates(TASK, task, baseScene, a.states);
  // Each state with the run's own next H controls (the last ones repeated near the run's end).
  const points = segments.flatMap((seg) =>
    seg.along.map((x, s) => {
      const i = seg.indices[s]!;
      const executed = seg.run.record.summary.controls;
      const controls: Control[] = Array.from({ length: H }, (_, j) => [
        ...executed[Math.min(i + j, executed.length - 1)]!,
      ]);
      return { seg, x: x as State, index: i, uPrev: seg.uPrev[s]!, controls };
    }),
  );
  const samples = new Map<string, Sample[]>();
  const add = (kind: CrossoverKind, model: PredictionModel, workers: number, s: Sample): void => {
    const key = `${kind} ${spec(model)} ${workers}`;
    samples.set(key, [...(samples.get(key) ?? []), s]);
  };
  const oneWorker = { fine: [] as Sample[], parareal: [] as { K: number; sample: Sample }[] };
  const stepRuns: Sample[] = [];
  const fineEnd = new Map<(typeof points)[number], State>();
  for (const workers of a.workers) {
    const pool = new FinePool({ workers, compiledScenes: Math.max(4, segments.length) });
    try {
      const predictors = new Map(
        segments.map((seg) => [
          seg,
          MODELS.map((m) =>
            createPredictor({ ...seg.run.scene, fine: p.prediction }, pool, m, { dt: p.controlDuration }),
          ),
        ]),
      );
      await pool.warm();
      // One untimed round: the workers' first jobs pay for WebAssembly warm-up; the fine model's
      // predictions are the yardstick of the others' accuracy.
      for (const pt of points.slice(0, 1))
        for (const predictor of predictors.get(pt.seg)!)
          await predictor.predict({ x0: pt.x, controls: [pt.controls] });
      for (const pt of points)
        fineEnd.set(
          pt,
          (
            await predictors.get(pt.seg)![0]!.predict({ x0: pt.x, controls: [pt.controls] })
          ).sequences[0]!.iterates[0]!.at(-1)!,
        );
      for (let rep = 0; rep < a.reps; rep++) {
        process.stderr.write(`\r  ${workers} worker(s): round ${rep + 1}/${a.reps}   `);
        const round: PredictionTiming[] = [];
        for (const [i, pt] of points.entries()) {
          // The models take turns, starting one further on each state and round.
          for (let j = 0; j < MODELS.length; j++) {
            const m = (i + rep + j) % MODELS.length;
            const r = await timed(() =>
              predictors.get(pt.seg)![m]!.predict({ x0: pt.x, controls: [pt.controls] }),
            );
            const end = r.value.sequences[0]!.iterates.at(-1)!.at(-1)!;
            const sample: Sample = {
              wall: r.wall,
              mainCpu: r.mainCpu,
              timing: r.value.timing,
              sequences: 1,
              prediction: r.value.timing.wallTime,
              vsFine: layoutForScene(pt.seg.run.scene).maxSliderPoseChange(end, fineEnd.get(pt)!).translation,
              stretch: jobStretch([r.value.timing]),
            };
            round.push(r.value.timing);
            add('prediction', MODELS[m]!, workers, sample);
            if (workers === 1 && MODELS[m]!.kind === 'fine') oneWorker.fine.push(sample);
            const model = MODELS[m]!;
            if (workers === 1 && model.kind === 'parareal' && model.controlsPerSlice === 1)
              oneWorker.parareal.push({ K: model.iterations, sample });
          }
        }
        const roundStretch = jobStretch(round);
        for (let j = 0; j < MODELS.length; j++) {
          const m = (rep + j) % MODELS.length;
          for (const seg of segments) {
            // A fresh planner per round: every model plans from the same samples.
            const parts = await createTaskRun({
              task,
              scene: seg.run.scene,
              pool,
              model: MODELS[m]!,
              seed: 1,
            });
            for (let s = 0; s < seg.along.length; s++) {
              const r = await timed(() =>
                parts.planner.plan({ x: seg.along[s]!, step: seg.indices[s]!, uPrev: seg.uPrev[s]! }),
              );
              const sample: Sample = {
                wall: r.wall,
                mainCpu: r.mainCpu,
                timing: null,
                sequences: r.value.sequences,
                prediction: r.value.predictionTime,
                vsFine: null,
                stretch: roundStretch,
              };
              add('step', MODELS[m]!, workers, sample);
              if (workers === 1 && MODELS[m]!.kind === 'fine') stepRuns.push(sample);
            }
            parts.dispose();
          }
        }
      }
      process.stderr.write('\n');
    } finally {
      await pool.close();
    }
  }
  const constants = fitConstants(oneWorker.fine, oneWorker.parareal, H);
  const stepSequences = Math.round(
    median(
      [...samples.entries()].flatMap(([k, l]) => (k.startsWith('step') ? l.map((s) => s.sequences) : [])),
    ),
  );
  const stepOverhead = Math.max(0, median(stepRuns.map((s) => s.wall - s.prediction)));
  const result = modelResult(samples, constants, H, stepSequences, stepOverhead, a.maxWorkers);
  const data = {
    loadAtEnd: Number(os.loadavg()[0]!.toFixed(2)),
    task: TASK,
    horizon: H,
    stepSequences,
    stepOverhead,
    states: points.length,
    repetitions: a.reps,
    constants,
    ...result,
    maxWorkers: a.maxWorkers,
  };
  printTables(crossoverResultSchema.parse({ machine: machineInfo(), ...data }));
  writeResult(CROSSOVER_BENCH, data);
}

function printTables(r: CrossoverResult): void {
  const ms = (s: number): number => s * 1000;
  const c = r.constants;
  printTable(
    `parareal-crossover: cost model constants (ms), measured on 1 worker; load ${r.machine.loadAtStart} -> ${r.loadAtEnd}`,
    [
      {
        'fine per control': ms(c.fineControl),
        'fine per job': ms(c.fineJob),
        'main per job': ms(c.mainPerJob),
        'transit per job': ms(c.transit),
        'coarse per control': ms(c.coarseControl),
        'step overhead': ms(r.stepOverhead),
      },
    ],
  );
  printTable(
    `parareal-crossover: measured (median, quartiles, ${r.repetitions} rounds x ${r.states} states) against the cost model times the load's stretch of the workers' jobs (wall / CPU), ms; one prediction = 1 sequence of ${r.horizon} controls, one MPC step = ${r.stepSequences} sequences`,
    r.measured.map((m): Row => ({
      kind: m.kind,
      model: m.model,
      workers: m.workers,
      measured: ms(m.measured),
      q1: ms(m.q1),
      q3: ms(m.q3),
      'fine jobs': m.fineJobs ?? '',
      'vs fine mm': m.vsFineMm ?? '',
      stretch: m.stretch,
      'model x stretch': ms(m.predicted),
      'error %': m.error * 100,
    })),
  );
  for (const kind of ['prediction', 'step'] as const) {
    const x = r.crossover[kind];
    process.stdout.write(
      `${kind}: Parareal beats the fine model from ${Object.entries(x.byModel)
        .map(([m, w]) => `${m}: W = ${w ?? `never up to ${r.maxWorkers}`}`)
        .join(', ')}; auto switches at ${x.auto ?? 'never'}\n`,
    );
  }
}
