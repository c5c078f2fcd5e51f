/**
 * `npm run bench -- physics [REPEATS] [PUSHES]`: cost of the two physics models, and the accuracy
 * of the fine model's integrator settings (physics-accuracy.ts).
 * `npm run bench -- physics --task NAME [RUNS]`: that accuracy on the task's own situations (every
 * state of its first RUNS committed fine-model runs, default 10, and the next horizon of executed
 * controls), written to bench/results/physics-NAME.json: how a task's prediction settings are chosen.
 * Fine: microseconds per MuJoCo time step and per 1 s control (1000 steps), for 1..4 sliders and
 * each integrator. Coarse: microseconds per 1 s control. Ratio: fine / coarse per control (the
 * papers report 130-230x for their coarse models).
 */
import { performance } from 'node:perf_hooks';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { FineModel } from '#physics/fine-model';
import { initialState } from '#contract/state';
import type { Integrator, Scene } from '#contract/scene';
import { loadSceneFile } from '../src-main/common/config-files';
import path from 'node:path';
import { loadTaskFile } from '../src-main/planning/task-file';
import { accuracyRows, ACCURACY_SETTINGS, replayAccuracyRows, type Replays } from './physics-accuracy';
import { fineRuns } from './recorded-runs';
import { printTable, writeResult, type Row } from './report';

function sceneWith(sliders: number, integrator: Integrator): Scene {
  const base = loadSceneFile('resources/scenes/cvs-multi-object.json');
  return { ...base, sliders: base.sliders.slice(0, sliders), fine: { ...base.fine, integrator } };
}

/** Median of repeated timings of fn, in microseconds per call. */
function timeUs(fn: () => void, repeats: number): number {
  const samples: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    fn();
    samples.push((performance.now() - t0) * 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** One row of the cost table: fine and coarse cost of a 1 s push into the first of n sliders. */
export async function physicsCostRow(integrator: Integrator, sliders: number, repeats: number): Promise<Row> {
  const scene = sceneWith(sliders, integrator);
  const fine = await FineModel.create(scene);
  try {
    const coarse = new AnalyticalCoarseModel(scene);
    const x0 = initialState(scene);
    // A push into the first slider, so contacts are active as in real use.
    fine.step(x0, [0.05, 0], 1); // warm-up (JIT, memory growth)
    const fineControlUs = timeUs(() => fine.step(x0, [0.05, 0], 1), repeats);
    const inner = 2000;
    const coarseControlUs =
      timeUs(() => {
        for (let k = 0; k < inner; k++) coarse.step(x0, 0.05, 0, 1);
      }, repeats) / inner;
    return {
      integrator,
      sliders,
      'fine us/step': fineControlUs / fine.stepsFor(1),
      'fine ms/control': fineControlUs / 1000,
      'coarse us/control': coarseControlUs,
      'fine/coarse': fineControlUs / coarseControlUs,
    };
  } finally {
    fine.dispose();
  }
}

export async function run(args: string[]): Promise<void> {
  if (args[0] === '--task') return taskAccuracy(args[1] ?? '', Number(args[2] ?? 10));
  const repeats = Number(args[0] ?? 7);
  const rows: Row[] = [];
  for (const integrator of ['RK4', 'Euler'] as const) {
    for (let n = 1; n <= 4; n++) rows.push(await physicsCostRow(integrator, n, repeats));
  }
  printTable('Physics model cost (1 s control = 1000 steps of 1 ms; median of repeats)', rows);
  const pushes = Number(args[1] ?? 100);
  const accuracy = await accuracyRows(pushes);
  printTable(
    `Prediction accuracy: final slider pose after ${pushes} random off-centre 4 s pushes, against MuJoCo RK4 at 1 ms (the execution world)`,
    accuracy,
  );
  writeResult('physics', { repeats, rows, accuracy: { pushes, rows: accuracy } });
}

/**
 * Looser constraint solving than MuJoCo's defaults (100 Newton iterations to a 1e-8 relative
 * improvement, 50 line-search iterations), on the fastest setting so far, Euler 5 ms with sleeping
 * bodies and only reachable objects (scene.ts `fine.solver`).
 */
const SOLVER_SETTINGS = [
  { tolerance: 1e-6 },
  { tolerance: 1e-4 },
  { tolerance: 1e-4, iterations: 4, lsIterations: 5 },
  { iterations: 1, lsIterations: 5 },
];

/** The prediction settings on a task's recorded situations (the task's horizon of executed controls from each state). */
async function taskAccuracy(name: string, runs: number): Promise<void> {
  const { task, scene } = loadTaskFile(path.resolve(`resources/tasks/${name}.json`));
  const p = task.planner;
  const recorded = fineRuns(name, task, scene).slice(0, runs);
  if (recorded.length === 0) throw new Error(`no committed fine-model run of ${name}`);
  const groups: Replays[] = recorded.map(({ record, scene: drawn }) => {
    const { states, controls } = record.summary;
    return {
      scene: drawn,
      replays: states
        .slice(0, -1)
        .map((x, i) => ({ x0: Float64Array.from(x), controls: controls.slice(i, i + p.horizon) })),
    };
  });
  // RK4 1 ms is the reference itself; the settings a 1 s control divides into whole steps.
  const settings = [
    ...ACCURACY_SETTINGS.filter((s) => !(s.integrator === 'RK4' && s.timestep === 0.0005)),
    { integrator: 'Euler' as const, timestep: 0.004 },
    // Resting objects out of the robot's way asleep (MuJoCo's body sleeping).
    { integrator: 'Euler' as const, timestep: 0.002, sleep: true },
    { integrator: 'Euler' as const, timestep: 0.004, sleep: true },
    { integrator: 'Euler' as const, timestep: 0.005, sleep: true },
    // Only the objects each control can move simulated (physics/reach.ts), the others passed through.
    { integrator: 'Euler' as const, timestep: 0.005, sleep: true, onlyReachable: true },
    ...SOLVER_SETTINGS.map((solver) => ({
      integrator: 'Euler' as const,
      timestep: 0.005,
      sleep: true,
      onlyReachable: true,
      solver,
    })),
    // Longer steps with the 1e-4 tolerance, up to the scene's 10 ms limit; a step must divide both
    // a 1 s control and TAMPC's 0.5 s rest into whole steps (task-file.ts).
    ...[0.00625, 0.01].map((timestep) => ({
      integrator: 'Euler' as const,
      timestep,
      sleep: true,
      onlyReachable: true,
      solver: { tolerance: 1e-4 },
    })),
  ].filter(
    (s) => Math.abs(p.controlDuration / s.timestep - Math.round(p.controlDuration / s.timestep)) < 1e-9,
  );
  const rows = await replayAccuracyRows(groups, p.controlDuration, settings);
  const n = groups.reduce((a, g) => a + g.replays.length, 0);
  printTable(
    `Prediction accuracy on ${name}: ${n} situations of ${recorded.length} recorded fine-model runs, up to ${p.horizon} executed controls each, against MuJoCo RK4 at 1 ms without noise (largest difference over the ${scene.sliders.length > 1 ? 'objects' : 'object'})`,
    rows,
  );
  writeResult(`physics-${name}`, {
    task: name,
    situations: n,
    runs: recorded.map((r) => r.source),
    horizon: p.horizon,
    rows,
  });
}
