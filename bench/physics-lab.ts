/**
 * The lab learns its physics, on the virtual lab: a world that differs from the scene (objects
 * 1.6 times as heavy, their friction 1.5 times, the table's 0.75 times, motion capture 10 ms late
 * with 0.5 mm noise) and one that matches it. On each: identification runs (physics-probe/),
 * the physics fit on their logs (lab-physics/, as `parapush physics fit`, `--held-out` runs of
 * the differing world held out), the fine model's held-out multi-step prediction error before and
 * after, and the scene's task run n times with the scene's physics and with the fitted physics,
 * against the matching lab. Writes bench/results/physics-lab.json, which `npm run results` puts
 * into docs/physics-fit.md (experiments/physics-lab-table.ts).
 *
 *   npm run bench -- physics-lab [--probes N] [--held-out N] [--runs N] [--bootstrap N] [--scene FILE]
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pusherFriction } from '#contract/end-effector/pusher';
import type { Scene } from '#contract/scene';
import { loadSceneFile } from '../src-main/common/config-files';
import { benchMachineSchema } from '../src-main/experiments/bench-file';
import {
  physicsLabResultSchema,
  physicsLabText,
  type PhysicsLabResult,
} from '../src-main/experiments/physics-lab-table';
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
import { machineInfo, writeResult } from './report';

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

/** The parameters fitted: every one the fit knows (contract/physics-profile.ts FITTABLE). */
const FIT: Fittable[] = ['mass', 'friction', 'table', 'latency'];

/**
 * The world's truth as the fit's multipliers (lab-physics/fit.ts PhysicsPoint) of the scene's
 * contacts: object mass, pusher-object and object-table friction, and the motion capture's
 * latency. MuJoCo slides a contact at the larger of its geoms' coefficients, so a contact's
 * multiplier is the larger scaled coefficient over the larger of the scene's.
 */
function truthOf(world: LabWorldInput, scene: Scene): PhysicsPoint {
  const k = { objectFriction: 1, pusherFriction: 1, tableFriction: 1, ...world.physics };
  const object = scene.sliders[0]!.friction;
  const pusher = pusherFriction(scene.pusher!);
  const table = scene.table.friction;
  const contact = (a: number, ka: number, b: number, kb: number) => Math.max(a * ka, b * kb) / Math.max(a, b);
  return {
    mass: world.physics.objectMass ?? 1,
    friction: contact(pusher, k.pusherFriction, object, k.objectFriction),
    table: contact(table, k.tableFriction, object, k.objectFriction),
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
      maxEvaluations: 30,
      heldOut,
      bootstrap,
      command: ['npm', 'run', 'bench', '--', 'physics-lab'],
    });
  } finally {
    await pool.close();
  }
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

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      probes: { type: 'string', default: '3' },
      'held-out': { type: 'string', default: '2' },
      runs: { type: 'string', default: '10' },
      bootstrap: { type: 'string', default: '3' },
      scene: { type: 'string', default: path.join(repoRoot, 'resources/scenes/isrr-obstacle.json') },
    },
  });
  const sceneFile = path.resolve(values.scene);
  const scene = loadSceneFile(sceneFile);
  const taskFile = path.join(repoRoot, 'resources/tasks', `${scene.name}.json`);
  const task = loadTaskFile(taskFile).task;
  const settings = {
    probes: Number(values.probes),
    heldOut: Number(values['held-out']),
    runs: Number(values.runs),
    bootstrap: Number(values.bootstrap),
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'physics-lab-logs-'));

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
  const differingProbes = await timed('probing the differing world', () =>
    probeLogs(sceneFile, scene, task, DIFFERING_WORLD, settings.probes + settings.heldOut, dir),
  );
  const matchingProbes = await timed('probing the matching world', () =>
    probeLogs(sceneFile, scene, task, MATCHING_WORLD, settings.probes, dir),
  );
  const differing = await timed('fitting the differing world', () =>
    fitLogs(differingProbes.logs, scene, settings.heldOut, settings.bootstrap),
  );
  const matching = await timed('fitting the matching world', () =>
    fitLogs(matchingProbes.logs, scene, 0, settings.bootstrap),
  );
  const conditions: [string, Scene, LabWorldInput][] = [
    ['differing lab, scene physics', scene, DIFFERING_WORLD],
    ['differing lab, fitted physics', differing.fitted, DIFFERING_WORLD],
    ['matching lab, scene physics', scene, MATCHING_WORLD],
  ];
  const runs: PhysicsLabResult['taskRuns'] = [];
  for (const [condition, plannerScene, world] of conditions)
    runs.push({
      condition,
      runs: await timed(`task runs: ${condition}`, () =>
        taskRuns(sceneFile, plannerScene, task, world, settings.runs),
      ),
    });

  const result: PhysicsLabResult = {
    machine: benchMachineSchema.parse(machineInfo()),
    scene: scene.name,
    command: ['npm run bench -- physics-lab', ...args].join(' '),
    worlds: { differing: DIFFERING_WORLD, matching: MATCHING_WORLD },
    settings,
    probes: {
      differing: { runs: differingProbes.logs.length, rerun: differingProbes.stopped.length },
      matching: { runs: matchingProbes.logs.length, rerun: matchingProbes.stopped.length },
    },
    fits: [
      fitEntry('differing', differing, truthOf(DIFFERING_WORLD, scene)),
      fitEntry('matching', matching, truthOf(MATCHING_WORLD, scene)),
    ],
    taskRuns: runs,
    stages,
  };
  const file = writeResult('physics-lab', result);
  process.stdout.write(
    `${physicsLabText(physicsLabResultSchema.parse(result))}\n\nwrote ${file}; \`npm run results\` puts it into docs/physics-fit.md\n`,
  );
}

/** A fit's estimates against the world's truth, its warnings and held-out error. */
function fitEntry(world: string, run: FitRun, truth: PhysicsPoint): PhysicsLabResult['fits'][number] {
  return {
    world,
    estimates: run.fit.estimates.map((e) => ({ ...e, truth: truth[e.parameter] })),
    warnings: run.fit.warnings,
    heldOut: run.heldOut,
  };
}
