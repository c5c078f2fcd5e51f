/**
 * The lab learns its physics, on the virtual lab: a world that differs from the scene (objects
 * 1.6 times as heavy, their friction 1.5 times, the table's 0.75 times, motion capture 10 ms late
 * with 0.5 mm noise) and one that matches it. On each: identification runs (physics-probe/),
 * the physics fit on their logs (lab-physics/, as `parapush physics fit`: every third run held
 * out), the fine model's held-out multi-step prediction error before and after, and the scene's
 * task run n times with the scene's physics and with the fitted physics, against the matching lab.
 * Writes bench/results/physics-lab.json and the generated section docs/physics-fit-lab.md.
 *
 *   npm run bench -- physics-lab [--probes N] [--held-out N] [--runs N] [--bootstrap N] [--scene FILE]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Scene } from '#contract/scene';
import { loadSceneFile } from '../src-main/common/config-files';
import { meanCiText, wilsonInterval } from '../src-main/experiments/stats';
import { LabLink, loopbackLabAddress } from '../src-main/lab-link/lab-link';
import { probeRun } from '../src-main/physics-probe/probe-run';
import { loadTaskFile, type Task } from '../src-main/planning/task-file';
import { RunOwner } from '../src-main/run/run-owner';
import { plannerSettingsOf, RunRecorder } from '../src-main/run/run-recorder';
import { supervisedRun } from '../src-main/run/supervised-run';
import type { LabConfigInput } from '../src-main/virtual-lab/virtual-lab';
import { VirtualLabThread } from '../src-main/virtual-lab/lab-thread/lab-thread';
import { readLoggedPushes } from '../src-main/lab-physics/executed-pushes';
import type { PhysicsPoint } from '../src-main/lab-physics/fit';
import { fitRun, type FitRun } from '../src-main/lab-physics/fit-run';
import type { Fittable } from '#contract/physics-profile';
import { poolReplay } from '../src-main/lab-physics/prediction-error';
import { FinePool } from '../src-main/parareal/fine-pool';
import type { WorldMocap, WorldPhysics } from '../src-main/virtual-lab/world-physics';
import { machineInfo, meanCi95, printTable, writeResult, type Row } from './report';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..');

/**
 * The world of the issue's example: heavier, grippier objects, a slicker table, late and noisy
 * cameras. Its only randomness is the cameras' noise: no process noise on the bodies (the virtual
 * lab's default), so that what the model cannot predict is its physics, which a fit can change,
 * and not a random walk no physics can (docs/physics-fit.md, "The virtual lab's worlds").
 */
export const DIFFERING_WORLD: LabWorldInput = {
  physics: { objectMass: 1.6, objectFriction: 1.5, tableFriction: 0.75 },
  mocap: { latency: 0.01, positionNoise: 0.0005 },
  noiseVariance: 0,
};
/** The scene's own physics, with a calibrated system's camera jitter and the same (no) process noise. */
export const MATCHING_WORLD: LabWorldInput = {
  physics: {},
  mocap: {},
  noiseVariance: 0,
};

/** The parameters fitted: every one the fit knows (lab-physics/physics-profile.ts FITTABLE). */
const FIT: Fittable[] = ['mass', 'friction', 'table', 'latency'];

/**
 * The world's truth as the fit's multipliers (lab-physics/fit.ts PhysicsPoint): object mass and
 * friction, table friction, and the motion capture's latency.
 */
function truthOf(world: LabWorldInput): PhysicsPoint {
  return {
    mass: world.physics.objectMass ?? 1,
    friction: world.physics.objectFriction ?? 1,
    table: world.physics.tableFriction ?? 1,
    latency: world.mocap.latency ?? 0,
  };
}

/** `physics fit` on the logs (every third held out) on two fine workers, with a bootstrap for the uncertainty. */
async function fitLogs(logs: string[], scene: Scene, heldOut: number, bootstrap: number): Promise<FitRun> {
  const runs = await Promise.all(logs.map((f) => readLoggedPushes(f)));
  const pool = new FinePool({ workers: 2 });
  try {
    return await fitRun(poolReplay(pool), { scene, file: null }, runs, {
      parameters: FIT,
      horizon: 3,
      maxEvaluations: 60,
      heldOut,
      bootstrap,
      command: ['npm', 'run', 'bench', '--', 'physics-lab'],
    });
  } finally {
    await pool.close();
  }
}

/** Each fitted parameter against the truth: its estimate, interval, identifiability and relative error. */
function fitRows(label: string, run: FitRun, truth: PhysicsPoint): Row[] {
  return run.fit.estimates.map((e) => {
    const t = truth[e.parameter];
    const err = e.parameter === 'latency' ? e.value - t : e.value / t - 1;
    return {
      world: label,
      parameter: e.parameter,
      truth: t,
      fitted: e.value,
      '1-sigma': `[${e.low.toPrecision(3)}, ${e.high.toPrecision(3)}]`,
      identifiable: e.identifiable ? 'yes' : 'no',
      error: e.parameter === 'latency' ? `${(err * 1000).toFixed(1)} ms` : `${(err * 100).toFixed(1)} %`,
      'truth within 1-sigma': t >= e.low && t <= e.high ? 'yes' : 'no',
    };
  });
}

interface LabWorldInput {
  physics: Partial<WorldPhysics>;
  mocap: Partial<WorldMocap>;
  /** Variance of the world's process noise on the bodies' velocities ((m/s)^2 per step). */
  noiseVariance: number;
}

/**
 * A virtual lab with `world` on free ports, in a thread of its own as the console runs it (on the
 * main thread, a busy planner starves its frames and the supervisor stops the run on stale motion
 * capture), and a link to it that plans with `plannerScene`.
 */
async function labWith(
  sceneFile: string,
  world: LabWorldInput,
  plannerScene: Scene,
): Promise<{ lab: VirtualLabThread; link: LabLink; close(): Promise<void> }> {
  const config: LabConfigInput = {
    scene: sceneFile,
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0, gripper: 0, natnetCommand: 0, natnetData: 0 },
    mocap: { multicast: false },
    robot: { unlockDelay: 0.3 },
    world: {
      noiseVariance: world.noiseVariance,
      seed: 1,
      physics: world.physics,
      mocap: { latency: 0, ...world.mocap },
    },
  };
  const lab = await VirtualLabThread.start(config);
  const link = await LabLink.connect(loopbackLabAddress(lab.ports), plannerScene, lab.setup);
  return {
    lab,
    link,
    close: async () => {
      await link.close();
      await lab.stop();
    },
  };
}

/**
 * `n` identification runs on `world` that played every push, each from the scene's start; their
 * session logs, and how many runs a stop ended early (on a loaded machine, stale motion capture):
 * those are run again, up to 3n runs in all.
 */
async function probeLogs(
  sceneFile: string,
  scene: Scene,
  task: Task,
  world: LabWorldInput,
  n: number,
  dir: string,
): Promise<{ logs: string[]; stopped: string[] }> {
  const env = await labWith(sceneFile, world, scene);
  const logs: string[] = [];
  const stopped: string[] = [];
  try {
    for (let attempt = 0; logs.length < n && attempt < 3 * n; attempt++) {
      await env.lab.placeObjects();
      const recorder = await RunRecorder.start({
        dir,
        origin: 'headless',
        mode: 'real',
        label: 'probe',
        scene,
        settings: plannerSettingsOf(task, scene, { kind: 'fine' }, 'analytical'),
      });
      // One worker: the probe predicts one control at a time, and the lab's thread and the safety
      // thread keep the other core.
      const owner = new RunOwner({ workers: 1 });
      owner.begin('real', recorder);
      let finished = false;
      try {
        const r = await probeRun({ link: env.link, task, owner });
        finished = r.run.outcome === 'finished';
        process.stderr.write(
          `probe ${logs.length + 1}/${n}: ${r.run.outcome} (${r.run.reason}), ${r.done.length} pushes\n`,
        );
      } finally {
        owner.release();
        await owner.close();
        await recorder.close();
      }
      (finished ? logs : stopped).push(recorder.file);
    }
  } finally {
    await env.close();
  }
  if (logs.length < n) throw new Error(`only ${logs.length} of ${n} identification runs played every push`);
  return { logs, stopped };
}

interface TaskRun {
  outcome: string;
  taskTime: number | null;
  actions: number;
}

/** `n` runs of the task on `world`, planned with `plannerScene`'s physics. */
async function taskRuns(
  sceneFile: string,
  plannerScene: Scene,
  task: Task,
  world: LabWorldInput,
  n: number,
): Promise<TaskRun[]> {
  const env = await labWith(sceneFile, world, plannerScene);
  const runs: TaskRun[] = [];
  try {
    for (let i = 0; i < n; i++) {
      await env.lab.placeObjects();
      const owner = new RunOwner({});
      owner.begin('real', null);
      try {
        const r = await supervisedRun({ link: env.link, task, model: { kind: 'auto' }, owner, seed: i + 1 });
        runs.push({ outcome: r.outcome, taskTime: r.summary?.taskTime ?? null, actions: r.actions });
        process.stderr.write(`task run ${i + 1}/${n}: ${r.outcome} (${r.reason}), ${r.actions} actions\n`);
      } finally {
        owner.release();
        await owner.close();
      }
    }
  } finally {
    await env.close();
  }
  return runs;
}

function runRow(label: string, runs: TaskRun[]): Row {
  const ok = runs.filter((r) => r.outcome === 'finished');
  const w = wilsonInterval(ok.length, runs.length);
  return {
    condition: label,
    n: runs.length,
    success: `${ok.length}/${runs.length} [${(w.low * 100).toFixed(0)}, ${(w.high * 100).toFixed(0)}] %`,
    'task time s': meanCiText(meanCi95(ok.map((r) => r.taskTime ?? Number.NaN))),
    actions: meanCiText(meanCi95(ok.map((r) => r.actions))),
  };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      probes: { type: 'string', default: '3' },
      'held-out': { type: 'string', default: '1' },
      runs: { type: 'string', default: '10' },
      bootstrap: { type: 'string', default: '8' },
      scene: { type: 'string', default: path.join(repoRoot, 'resources/scenes/isrr-obstacle.json') },
    },
  });
  const sceneFile = path.resolve(values.scene);
  const scene = loadSceneFile(sceneFile);
  const taskFile = path.join(repoRoot, 'resources/tasks', `${scene.name}.json`);
  const task = loadTaskFile(taskFile).task;
  const probes = Number(values.probes);
  const heldOut = Number(values['held-out']);
  const n = Number(values.runs);
  const bootstrap = Number(values.bootstrap);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'physics-lab-logs-'));
  const result: Record<string, unknown> = {
    machine: machineInfo(),
    scene: scene.name,
    worlds: { differing: DIFFERING_WORLD, matching: MATCHING_WORLD },
    settings: { probes, heldOut, runs: n, bootstrap },
  };

  // Wall time of each stage (s), as data beside the results.
  const stages: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      stages[name] = (performance.now() - t0) / 1000;
      process.stderr.write(`${name}: ${stages[name]!.toFixed(0)} s\n`);
    }
  };
  result.stageSeconds = stages;
  const differingProbes = await timed('probe differing', () =>
    probeLogs(sceneFile, scene, task, DIFFERING_WORLD, probes + heldOut, dir),
  );
  const matchingProbes = await timed('probe matching', () =>
    probeLogs(sceneFile, scene, task, MATCHING_WORLD, probes, dir),
  );
  const differingLogs = differingProbes.logs;
  const matchingLogs = matchingProbes.logs;
  result.probeLogs = { differing: differingProbes, matching: matchingProbes };

  const differing = await timed('fit differing', () => fitLogs(differingLogs, scene, heldOut, bootstrap));
  const matching = await timed('fit matching', () => fitLogs(matchingLogs, scene, 0, bootstrap));
  const fitted = differing.fitted;
  const fitTable = [
    ...fitRows('differing', differing, truthOf(DIFFERING_WORLD)),
    ...fitRows('matching', matching, truthOf(MATCHING_WORLD)),
  ];
  printTable(`${scene.name}: fitted physics against the worlds' truth`, fitTable);
  const held = differing.heldOut;
  const heldRows: Row[] = held
    ? [
        {
          runs: held.runs,
          'position p50 before mm': held.before.position.p50 * 1000,
          'position p50 after mm': held.after.position.p50 * 1000,
          'position p95 before mm': held.before.position.p95 * 1000,
          'position p95 after mm': held.after.position.p95 * 1000,
          'p50 ratio after/before': held.after.position.p50 / held.before.position.p50,
        },
      ]
    : [];
  if (held) printTable('differing world: held-out multi-step prediction error (horizon 3)', heldRows);
  result.fit = {
    differing: { estimates: differing.fit.estimates, warnings: differing.fit.warnings, heldOut: held },
    matching: { estimates: matching.fit.estimates, warnings: matching.fit.warnings },
  };

  const rows: Row[] = [
    runRow(
      'differing lab, scene physics',
      await timed('runs differing/scene', () => taskRuns(sceneFile, scene, task, DIFFERING_WORLD, n)),
    ),
    runRow(
      'differing lab, fitted physics',
      await timed('runs differing/fitted', () => taskRuns(sceneFile, fitted, task, DIFFERING_WORLD, n)),
    ),
    runRow(
      'matching lab, scene physics',
      await timed('runs matching/scene', () => taskRuns(sceneFile, scene, task, MATCHING_WORLD, n)),
    ),
  ];
  result.taskRuns = rows;
  printTable(
    `${scene.name}: task runs (success with 95% Wilson interval; time and actions of successes, mean ± 95% CI)`,
    rows,
  );
  const file = writeResult('physics-lab', result);
  // Beside the results when they go elsewhere (a test's or a trial's run): the committed page is the committed results'.
  const pageFile = process.env.PARAPUSH_BENCH_OUT
    ? path.join(process.env.PARAPUSH_BENCH_OUT, 'physics-fit-lab.md')
    : path.join(repoRoot, 'docs/physics-fit-lab.md');
  writeFileSync(
    pageFile,
    page(fitTable, heldRows, rows, differing.fit.warnings, { probes, heldOut, runs: n, bootstrap }),
  );
  process.stdout.write(`wrote ${file} and ${pageFile}\n`);
}

/** The generated page: the worlds, the fit against their truth, the held-out error, the task runs. */
function page(
  fitTable: Row[],
  heldRows: Row[],
  runRows: Row[],
  warnings: string[],
  settings: { probes: number; heldOut: number; runs: number; bootstrap: number },
): string {
  const table = (rows: Row[]): string => {
    const cols = Object.keys(rows[0] ?? {});
    const cell = (v: string | number | undefined): string =>
      typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : (v ?? '');
    return [
      `| ${cols.join(' | ')} |`,
      `|${cols.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`),
    ].join('\n');
  };
  return [
    '# The physics fit on the virtual lab (generated)',
    '',
    'Generated by `npm run bench -- physics-lab` (bench/physics-lab.ts; its data in',
    'bench/results/physics-lab.json); do not edit by hand. The differing world (docs/virtual-lab.md,',
    `"A world that differs from the scene"): ${JSON.stringify(DIFFERING_WORLD)}; the matching world is`,
    "the scene's. Each world was probed by identification runs (`parapush physics probe`'s pushes) and",
    'fitted with `physics fit` (object mass and friction, table friction, latency: multipliers of the',
    "scene's values, latency in s).",
    '',
    `This run: ${settings.probes} identification runs fitted and ${settings.heldOut} held out on the differing world,`,
    `${settings.probes} on the matching one, ${settings.bootstrap} bootstrap refits, ${settings.runs} task runs per condition`,
    `(\`npm run bench -- physics-lab --probes ${settings.probes} --held-out ${settings.heldOut} --runs ${settings.runs} --bootstrap ${settings.bootstrap}\`).`,
    '',
    '## Fit against the truth',
    '',
    table(fitTable),
    '',
    ...(warnings.length > 0
      ? ['Warnings of the fit (differing world):', '', ...warnings.map((w) => `- ${w}`), '']
      : []),
    '## Held-out multi-step prediction error (differing world)',
    '',
    heldRows.length > 0 ? table(heldRows) : 'No run was held out.',
    '',
    '## Task runs',
    '',
    'Success with its 95 % Wilson interval; task time and actions of the successful runs, mean ± 95 % CI.',
    '',
    table(runRows),
    '',
  ].join('\n');
}
