/**
 * `npm run bench -- learned [step] [fig2] [fig3] [fig4] [cost] [--samples N] [--multi-samples N]
 * [--fig4-samples N] [--steps N] [--model DIR]`: the learned coarse model of CVS 2020 against the
 * analytical one.
 *
 * (a) step: single-step slider pose error against the fine model on fresh transitions (a seed the
 *     model was not trained on), contact and no-contact cases apart.
 * (b) fig2: CVS Fig. 2: RMS error of the slider positions along 4-control pushes per Parareal
 *     iteration (K = 0..4; K = 4 is exact) with the learned and the analytical coarse model, on
 *     single-object samples.
 * (c) fig3: CVS Fig. 3: the same with 2 and 4 sliders (the paper: 4 sliders, 100 pushes, per slider).
 * (f) fig4: CVS Fig. 4: the same along 8-control pushes (K = 0..8), one slider and 4 sliders
 *     (--fig4-samples pushes each; the paper shows the learned model only, and says the analytical
 *     one converges alike, so both are measured).
 * (e) task: the cvs-multi-object task (MPC, execution in the noisy fine-model world) with each
 *     coarse model, for the prediction models of --task-models (default: coarse) on --task-scenes
 *     sampled start states; success rate, actions and task time.
 * (d) cost: time of one coarse step (learned one state at a time and batched over the 20 rollouts
 *     of an optimizer iteration; analytical) relative to one fine step.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { Scene } from '#contract/scene';
import { loadSceneFile } from '../src-main/common/config-files';
import { layoutForScene, type State, type StateLayout, type Control } from '#contract/state';
import { singleStepError } from '../src-main/learned/evaluate';
import {
  DEFAULT_BLOCK_SIZE,
  fineSceneFor,
  generateTransitions,
  generationSettings,
} from '../src-main/learned/generate';
import { pushGeometryOf } from '../src-main/learned/geometry';
import { defaultLearnedModelDir, LearnedCoarseModel } from '../src-main/learned/learned-coarse-model';
import { defaultSamplingSettings, sampleTransitionStart } from '../src-main/learned/sampling';
import { unpadState } from '../src-main/learned/slots';
import { tfBackendReady } from '../src-main/learned/tf-backend';
import { createPredictor } from '../src-main/parareal/predictor';
import type { CoarseModelKind } from '#contract/planner-settings';
import { parseModelSpec } from '../src-main/parareal/model-choice';
import { loadCoarseModel } from '../src-main/planning/coarse-models';
import { defaultWorkerCount, FinePool } from '../src-main/parareal/fine-pool';
import { fig4RowSchema, meanErrorByIteration } from '../src-main/experiments/bench-claims';
import { summarize } from '../src-main/experiments/report';
import { lineChartSvg } from '../src-main/experiments/svg-chart';
import { readRunRecords } from '../src-main/experiments/run-record';
import { runExperiment } from '../src-main/experiments/runner';
import { Rng } from '../src-main/common/rng';
import { loadTaskFile } from '../src-main/planning/task-file';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { FineModel } from '#physics/fine-model';
import { parseFlag, sliderStateRms } from './parareal';
import { benchResultsDir, earlierParts, meanCi95, printTable, writeResult, type Row } from './report';

/** Controls per push in CVS Fig. 2 and 3 (Fig. 4 doubles it). */
const CONTROLS = 4;
const DT = 1;

function flagText(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
}

/**
 * Push samples: the pusher starts at rest next to a slider (sliders at rest, placed as in the
 * training data) and pushes towards the nearest one for `controlCount` controls, each direction jittered by up
 * to 20 deg and each speed in [0.03, 0.08] m/s.
 */
function pushSamples(
  scene: Scene,
  count: number,
  seed: number,
  controlCount: number,
): { x0s: State[]; controls: Control[][] } {
  const rng = new Rng(seed);
  const L = layoutForScene(scene);
  const settings = { ...defaultSamplingSettings, nearProbability: 1, movingProbability: 0 };
  const x0s: State[] = [];
  const controls: Control[][] = [];
  for (let s = 0; s < count; s++) {
    const t = sampleTransitionStart(rng, pushGeometryOf(scene), L.sliderCount, settings);
    const x = unpadState(t.x, L);
    const [px, py] = L.pusherPosition(x);
    L.setPusher(x, px, py, 0, 0);
    let nearest = 0;
    let best = Infinity;
    for (let i = 0; i < L.sliderCount; i++) {
      const p = L.sliderPose(x, i);
      const d = Math.hypot(p.x - px, p.y - py);
      if (d < best) [best, nearest] = [d, i];
    }
    const target = L.sliderPose(x, nearest);
    const aim = Math.atan2(target.y - py, target.x - px);
    const seq: Control[] = [];
    for (let c = 0; c < controlCount; c++) {
      const a = aim + rng.between(-0.35, 0.35);
      const v = rng.between(0.03, 0.08);
      seq.push([v * Math.cos(a), v * Math.sin(a)]);
    }
    x0s.push(x);
    controls.push(seq);
  }
  return { x0s, controls };
}

/**
 * Parareal's error per iteration k = 0..N against the exact (k = N) iterate of pushes of N controls
 * (one per time slice), averaged over the
 * samples: the papers' metric, the RMS of each slider's position along the push (CVS 2020 Sec. 5:
 * "over only positions", Fig. 3 per slider), and ours beside it, every slider's pose and velocity
 * pooled (ISRR Fig. 5's metric).
 */
async function convergence(
  pool: FinePool,
  scene: Scene,
  coarse: CoarseModelKind,
  modelDir: string,
  samples: { x0s: State[]; controls: Control[][] },
): Promise<{ perSlider: MeanCi[][]; pooled: MeanCi[] }> {
  const L = layoutForScene(scene);
  const controlCount = samples.controls[0]!.length;
  const predictor = createPredictor(
    scene,
    pool,
    { kind: 'parareal', iterations: controlCount, tolerance: null, controlsPerSlice: 1 },
    { dt: DT, coarse: await loadCoarseModel(scene, coarse, { learnedModelDir: modelDir }) },
  );
  const r = await predictor.predict({ x0: samples.x0s, controls: samples.controls });
  const ks = Array.from({ length: controlCount + 1 }, (_, k) => k);
  const pooled: number[][] = ks.map(() => []);
  const perSlider: number[][][] = Array.from({ length: L.sliderCount }, () => ks.map(() => []));
  for (const seq of r.sequences) {
    const fine = seq.iterates[controlCount]!;
    for (const k of ks) {
      pooled[k]!.push(sliderStateRms(L, seq.iterates[k]!, fine));
      for (let i = 0; i < L.sliderCount; i++)
        perSlider[i]![k]!.push(sliderPositionRms(L, i, seq.iterates[k]!, fine));
    }
  }
  return {
    perSlider: perSlider.map((byK) => byK.map((v) => meanCi95(v))),
    pooled: pooled.map((v) => meanCi95(v)),
  };
}

type MeanCi = { mean: number; ci95: number };

/** RMS of slider i's position error along a trajectory (m). */
function sliderPositionRms(
  L: StateLayout,
  i: number,
  states: readonly State[],
  fine: readonly State[],
): number {
  let sum = 0;
  for (let n = 0; n < fine.length; n++) {
    const d = L.difference(states[n]!, fine[n]!);
    const o = L.posOffset(i);
    sum += d[o]! ** 2 + d[o + 1]! ** 2;
  }
  return Math.sqrt(sum / fine.length);
}

/**
 * One row per coarse model and slider: the position RMS per iteration in mm with the 95% interval
 * of k = 1, and the pooled pose-and-velocity RMS (SI) per iteration beside it.
 */
async function convergenceTable(
  pool: FinePool,
  base: Scene,
  sliders: number,
  push: { count: number; controls: number },
  modelDir: string,
  title: string,
): Promise<Row[]> {
  const { count, controls } = push;
  const scene = fineSceneFor(base, sliders);
  const samples = pushSamples(scene, count, 2020 + sliders, controls);
  const rows: Row[] = [];
  const mean: Record<string, number[]> = {};
  // The iterations between the coarse prediction (k = 0) and the exact one (k = controls).
  const inexact = Array.from({ length: controls - 1 }, (_, j) => j + 1);
  for (const coarse of ['analytical', 'learned'] as const) {
    process.stderr.write(
      `  ${sliders} slider(s), ${coarse} coarse model: ${count} pushes of ${controls} controls\n`,
    );
    const c = await convergence(pool, scene, coarse, modelDir, samples);
    c.perSlider.forEach((byK, i) => {
      const row: Row = { sliders, coarse, slider: i + 1 };
      byK.forEach((v, k) => (row[`k=${k} mm`] = v.mean * 1000));
      row['+-95% k=1 mm'] = byK[1]!.ci95 * 1000;
      c.pooled.forEach((v, k) => (row[`pooled k=${k}`] = v.mean));
      rows.push(row);
    });
    // Mean over sliders of the position RMS, for the comparison of the two coarse models.
    mean[coarse] = inexact.map((k) => c.perSlider.reduce((a, byK) => a + byK[k]!.mean, 0) / sliders);
  }
  const better = inexact.map((_, j) => (mean.learned![j]! < mean.analytical![j]! ? 'yes' : 'no'));
  printTable(
    `${title} (RMS of each slider's position along the push, mm, as in CVS 2020; pooled: every slider's pose and velocity, SI, as ISRR Fig. 5; k=${controls} is exact; learned below analytical at k=${inexact.join(',')}: ${better.join(', ')})`,
    rows,
  );
  return rows;
}

/** CVS Fig. 4 as a plot: the mean over sliders of the position RMS against the iteration. */
function writeFig4Chart(rows: Row[], controls: number, samples: number): void {
  const parsed = z.array(fig4RowSchema).parse(rows);
  const ks = Array.from({ length: controls + 1 }, (_, k) => k);
  const sliderCounts = [...new Set(parsed.map((r) => r.sliders))];
  const svg = lineChartSvg({
    title: `CVS Fig. 4: Parareal's error along ${controls}-control pushes (${samples} pushes per line)`,
    xLabel: 'Parareal iteration K',
    yLabel: 'slider position RMS (mm)',
    x: ks.map(String),
    series: sliderCounts.flatMap((n) =>
      (['learned', 'analytical'] as const).map((coarse) => ({
        label: `${n} slider${n === 1 ? '' : 's'}, ${coarse}`,
        values: meanErrorByIteration(parsed, n, coarse, controls) ?? ks.map(() => Number.NaN),
      })),
    ),
  });
  const dir = benchResultsDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'learned-fig4.svg');
  writeFileSync(file, svg);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}

async function stepErrors(pool: FinePool, base: Scene, steps: number, modelDir: string): Promise<Row[]> {
  process.stderr.write(`  generating ${steps} fresh transitions on the worker pool (seed 424242)\n`);
  const settings = generationSettings(base, {
    seed: 424242,
    dt: DT,
    sliderMix: [1, 1, 1, 1],
    blockSize: DEFAULT_BLOCK_SIZE,
  });
  const { records, contacts } = await generateTransitions(base, pool, settings, steps);
  const dataset = { manifest: { count: steps, dt: DT, geometry: settings.geometry }, records };
  const learned = LearnedCoarseModel.load(base, modelDir).file;
  const rows: Row[] = [];
  const fmt = (model: string, e: ReturnType<typeof singleStepError>): Row => ({
    model,
    mm: e.mm,
    deg: e.deg,
    'contact mm': e.contactMm,
    'contact deg': e.contactDeg,
    'no-contact mm': e.freeMm,
    'no-contact deg': e.freeDeg,
  });
  rows.push(
    fmt('fine (reference)', {
      transitions: steps,
      mm: 0,
      deg: 0,
      contactMm: 0,
      contactDeg: 0,
      freeMm: 0,
      freeDeg: 0,
    }),
  );
  rows.push(
    fmt(
      'learned',
      singleStepError(dataset, base, (s) => new LearnedCoarseModel(s, learned)),
    ),
  );
  rows.push(
    fmt(
      'analytical',
      singleStepError(dataset, base, (s) => new AnalyticalCoarseModel(s)),
    ),
  );
  printTable(
    `Single-step slider pose error against the fine model: ${steps} fresh 1 s transitions, 1-4 sliders, ${((100 * contacts) / steps).toFixed(0)}% contact cases`,
    rows,
  );
  return rows;
}

async function cost(base: Scene, modelDir: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of [1, 4]) {
    const scene = fineSceneFor(base, n);
    const { x0s, controls } = pushSamples(scene, 20, 7, CONTROLS);
    const fine = await FineModel.create(scene);
    fine.step(x0s[0]!, controls[0]![0]!, DT);
    let t0 = performance.now();
    const fineRuns = 5;
    for (let i = 0; i < fineRuns; i++) fine.step(x0s[i]!, controls[i]![0]!, DT);
    // Costs in s per state.
    const fineCost = (performance.now() - t0) / 1000 / fineRuns;
    fine.dispose();
    const analytical = new AnalyticalCoarseModel(scene);
    t0 = performance.now();
    const aRuns = 2000;
    for (let i = 0; i < aRuns; i++)
      analytical.step(x0s[i % 20]!, controls[i % 20]![0]![0]!, controls[i % 20]![0]![1]!, DT);
    const analyticalCost = (performance.now() - t0) / 1000 / aRuns;
    const learned = LearnedCoarseModel.load(scene, modelDir);
    const us = controls.map((c) => c[0]!);
    learned.stepBatch(x0s, us, DT);
    t0 = performance.now();
    const singleRuns = 200;
    for (let i = 0; i < singleRuns; i++) learned.step(x0s[i % 20]!, us[i % 20]![0]!, us[i % 20]![1]!, DT);
    const singleCost = (performance.now() - t0) / 1000 / singleRuns;
    t0 = performance.now();
    const batchRuns = 50;
    for (let i = 0; i < batchRuns; i++) learned.stepBatch(x0s, us, DT);
    const batchCost = (performance.now() - t0) / 1000 / batchRuns / x0s.length;
    learned.dispose();
    rows.push(
      {
        sliders: n,
        model: 'fine (MuJoCo, 1000 steps of 1 ms)',
        'ms per state': fineCost * 1000,
        'fine / this': 1,
      },
      {
        sliders: n,
        model: 'learned, one state per call',
        'ms per state': singleCost * 1000,
        'fine / this': fineCost / singleCost,
      },
      {
        sliders: n,
        model: 'learned, 20 rollouts per call',
        'ms per state': batchCost * 1000,
        'fine / this': fineCost / batchCost,
      },
      {
        sliders: n,
        model: 'analytical',
        'ms per state': analyticalCost * 1000,
        'fine / this': fineCost / analyticalCost,
      },
    );
  }
  printTable('Cost of one 1 s coarse step relative to one fine step (in this process, one core)', rows);
  return rows;
}

/**
 * The cvs-multi-object experiment through the experiment runner (the same runs as `npx parapush
 * experiment --task cvs-multi-object --models M,M@learned --scenes N --seed 1`): each prediction
 * model with the analytical and with the learned coarse model, on paired scenes.
 */
async function taskExperiment(scenes: number, models: string[]): Promise<Row[]> {
  const { task, scene } = loadTaskFile('resources/tasks/cvs-multi-object.json');
  const specs = models.flatMap((m) => (parseModelSpec(m).model.kind === 'fine' ? [m] : [m, `${m}@learned`]));
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'parapush-bench-task-'));
  try {
    await runExperiment({
      task: task.name,
      models: specs,
      scenes,
      seed: 1,
      taskDef: task,
      scene,
      outDir,
      shard: { index: 0, count: 1 },
      workers: defaultWorkerCount(),
      onRun: ({ model, scene: s, record }) =>
        process.stderr.write(
          `  task ${model} scene ${s + 1}/${scenes}: ${record?.summary.outcome} after ${record?.summary.actions} actions\n`,
        ),
    });
    const rows: Row[] = summarize(readRunRecords(outDir), specs).map((m) => ({
      model: m.model,
      scenes: m.runs,
      'success %': 100 * m.successRate,
      'mean actions': m.actions.mean,
      'task time s': m.taskTimeAll.mean,
      'planning s/step': m.planningPerStep.mean,
    }));
    printTable(
      `cvs-multi-object task (MPC, noisy fine-model execution), ${scenes} sampled starts, paired across models`,
      rows,
    );
    return rows;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

export async function run(args: string[]): Promise<void> {
  const which = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1]!.startsWith('--')));
  const want = (name: string): boolean => which.length === 0 || which.includes(name);
  const samples = parseFlag(args, '--samples', 100);
  const multiSamples = parseFlag(args, '--multi-samples', 100);
  const fig4Samples = parseFlag(args, '--fig4-samples', 100);
  const steps = parseFlag(args, '--steps', 400);
  const modelDir = flagText(args, '--model', process.env.PARAPUSH_LEARNED_MODEL ?? defaultLearnedModelDir);
  // The task section builds its predictors through the planner, which finds the model here.
  process.env.PARAPUSH_LEARNED_MODEL = modelDir;
  const taskScenes = parseFlag(args, '--task-scenes', 10);
  const taskModels = flagText(args, '--task-models', 'coarse').split(',');
  const backend = await tfBackendReady();
  const base = loadSceneFile('resources/scenes/cvs-multi-object.json');
  // Relative to the checkout: a machine's own paths do not belong in committed results.
  const result: Record<string, unknown> = { backend, model: path.relative(process.cwd(), modelDir) };
  const pool = new FinePool();
  try {
    if (want('step')) result.step = { steps, rows: await stepErrors(pool, base, steps, modelDir) };
    // One table per slider count, all on the same pushes' settings.
    const bySliders = async (
      counts: number[],
      push: { count: number; controls: number },
      title: (n: number) => string,
    ): Promise<Row[]> => {
      const rows: Row[] = [];
      for (const n of counts) rows.push(...(await convergenceTable(pool, base, n, push, modelDir, title(n))));
      return rows;
    };
    if (want('fig2'))
      result.fig2 = {
        samples,
        rows: await bySliders(
          [1],
          { count: samples, controls: CONTROLS },
          () => `CVS Fig. 2: Parareal convergence on ${samples} single-object pushes`,
        ),
      };
    if (want('fig3')) {
      const rows = await bySliders(
        [2, 4],
        { count: multiSamples, controls: CONTROLS },
        (n) => `CVS Fig. 3: Parareal convergence with ${n} sliders, ${multiSamples} pushes`,
      );
      result.fig3 = { samples: multiSamples, rows };
    }
    if (want('fig4')) {
      const rows = await bySliders(
        [1, 4],
        { count: fig4Samples, controls: 2 * CONTROLS },
        (n) =>
          `CVS Fig. 4: Parareal convergence along ${2 * CONTROLS}-control pushes with ${n} slider(s), ${fig4Samples} pushes`,
      );
      result.fig4 = { samples: fig4Samples, controls: 2 * CONTROLS, rows };
      writeFig4Chart(rows, 2 * CONTROLS, fig4Samples);
    }
  } finally {
    await pool.close();
  }
  // The experiment runner brings its own pool: run it after this one is gone, not beside it.
  if (want('task')) result.task = { scenes: taskScenes, rows: await taskExperiment(taskScenes, taskModels) };
  if (want('cost')) result.cost = await cost(base, modelDir);
  writeResult('learned', { ...earlierParts('learned', result), ...result });
}
