/**
 * The lab learns its physics, on the virtual lab: a world that differs from the scene (objects
 * 1.6 times as heavy, their friction 1.5 times, the table's 0.75 times, motion capture 10 ms late
 * with 0.5 mm noise) and one that matches it. On each: identification runs (physics-probe/),
 * the physics fit on some of their logs (wt-physfit's `lab-physics`, through `PhysicsFit` below),
 * the fine model's held-out multi-step prediction error before and after, and the scene's task
 * run n times with the scene's physics and with the fitted physics, against the matching lab.
 * Writes bench/results/physics-lab.json and the generated section docs/physics-fit-lab.md.
 *
 *   npm run bench -- physics-lab [--probes N] [--held-out N] [--runs N] [--scene FILE]
 *
 * Without a fit wired in (`PHYSICS_FIT` below is null), it runs the probes and the task runs with
 * the scene's physics and says in its output and the page that the fit's figures are missing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Scene } from '#contract/scene';
import { loadSceneFile } from '../src-main/common/config-files';
import { loadSetup } from '../src-main/calibration/setup-file';
import { meanCiText, wilsonInterval } from '../src-main/experiments/stats';
import { LabLink, loopbackLabAddress } from '../src-main/lab-link/lab-link';
import { probeRun } from '../src-main/physics-probe/probe-run';
import { loadTaskFile, type Task } from '../src-main/planning/task-file';
import { RunOwner } from '../src-main/run/run-owner';
import { plannerSettingsOf, RunRecorder } from '../src-main/run/run-recorder';
import { supervisedRun } from '../src-main/run/supervised-run';
import { VirtualLab, type LabConfigInput } from '../src-main/virtual-lab/virtual-lab';
import type { WorldMocap, WorldPhysics } from '../src-main/virtual-lab/world-physics';
import { machineInfo, meanCi95, printTable, writeResult, type Row } from './report';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..');

/** The world of the example: heavier, grippier objects, a slicker table, late and noisy cameras. */
export const DIFFERING_WORLD: { physics: Partial<WorldPhysics>; mocap: Partial<WorldMocap> } = {
  physics: { objectMass: 1.6, objectFriction: 1.5, tableFriction: 0.75 },
  mocap: { latency: 0.01, positionNoise: 0.0005 },
};
export const MATCHING_WORLD: { physics: Partial<WorldPhysics>; mocap: Partial<WorldMocap> } = {
  physics: {},
  mocap: {},
};

/**
 * The fit as this bench needs it: fit a scene's parameters to session logs, and the fine model's
 * multi-step prediction error on logs with a scene's parameters. wt-physfit's `lab-physics`
 * provides it; `PHYSICS_FIT` is the wiring point.
 */
export interface PhysicsFit {
  fit(
    logs: string[],
    scene: Scene,
  ): Promise<{
    /** The scene with the fitted values. */
    scene: Scene;
    /** Each fitted parameter's value and uncertainty (1 sd), by name. */
    parameters: Record<string, { value: number; sd: number }>;
    /** Parameters only identifiable as a combination, in words. */
    warnings: string[];
  }>;
  /** Position error of the fine model's multi-step predictions over the logs, p50 and p95 (m). */
  error(logs: string[], scene: Scene): Promise<{ p50: number; p95: number }>;
}

/** The wiring point: the fit of wt-physfit's `lab-physics`; null until it is merged and wired. */
const PHYSICS_FIT: PhysicsFit | null = null;

interface LabWorldInput {
  physics: Partial<WorldPhysics>;
  mocap: Partial<WorldMocap>;
}

/** A virtual lab with `world` on free ports and a link to it that plans with `plannerScene`. */
async function labWith(
  sceneFile: string,
  world: LabWorldInput,
  plannerScene: Scene,
): Promise<{ lab: VirtualLab; link: LabLink; close(): Promise<void> }> {
  const config: LabConfigInput = {
    scene: sceneFile,
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0, gripper: 0, natnetCommand: 0, natnetData: 0 },
    mocap: { multicast: false },
    robot: { unlockDelay: 0.3 },
    world: { noiseVariance: 1e-4, seed: 1, physics: world.physics, mocap: { latency: 0, ...world.mocap } },
  };
  const lab = await VirtualLab.start(config);
  const setupFile = lab.writeSetup(
    path.join(mkdtempSync(path.join(os.tmpdir(), 'physics-lab-setup-')), 'lab.json'),
  );
  const link = await LabLink.connect(loopbackLabAddress(lab.ports), plannerScene, loadSetup(setupFile));
  return {
    lab,
    link,
    close: async () => {
      await link.close();
      await lab.stop();
    },
  };
}

/** `n` identification runs on `world`, each from the scene's start; their session logs. */
async function probeLogs(
  sceneFile: string,
  scene: Scene,
  task: Task,
  world: LabWorldInput,
  n: number,
  dir: string,
) {
  const env = await labWith(sceneFile, world, scene);
  const logs: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      await env.lab.placeObjects();
      const recorder = await RunRecorder.start({
        dir,
        origin: 'headless',
        mode: 'real',
        label: 'probe',
        scene,
        settings: plannerSettingsOf(task, scene, { kind: 'fine' }, 'analytical'),
      });
      const owner = new RunOwner({});
      owner.begin('real', recorder);
      try {
        const r = await probeRun({ link: env.link, task, owner });
        process.stderr.write(
          `probe ${i + 1}/${n}: ${r.run.outcome} (${r.run.reason}), ${r.done.length} pushes\n`,
        );
      } finally {
        owner.release();
        await owner.close();
        await recorder.close();
      }
      logs.push(recorder.file);
    }
  } finally {
    await env.close();
  }
  return logs;
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
  const dir = mkdtempSync(path.join(os.tmpdir(), 'physics-lab-logs-'));
  const result: Record<string, unknown> = {
    machine: machineInfo(),
    scene: scene.name,
    worlds: { differing: DIFFERING_WORLD, matching: MATCHING_WORLD },
  };
  const missing: string[] = [];

  const differingLogs = await probeLogs(sceneFile, scene, task, DIFFERING_WORLD, probes + heldOut, dir);
  const matchingLogs = await probeLogs(sceneFile, scene, task, MATCHING_WORLD, probes, dir);
  result.probeLogs = { differing: differingLogs, matching: matchingLogs };

  let fitted: Scene | null = null;
  if (PHYSICS_FIT) {
    const fit = PHYSICS_FIT;
    const train = differingLogs.slice(0, probes);
    const test = differingLogs.slice(probes);
    const f = await fit.fit(train, scene);
    fitted = f.scene;
    const before = await fit.error(test, scene);
    const after = await fit.error(test, f.scene);
    const m = await fit.fit(matchingLogs, scene);
    result.fit = {
      differing: f.parameters,
      warnings: f.warnings,
      heldOut: { before, after },
      matching: m.parameters,
    };
  } else
    missing.push(
      'the physics fit (wt-physfit) is not wired in: no fitted values, no held-out error, no runs with fitted physics',
    );

  const rows: Row[] = [
    runRow('differing lab, scene physics', await taskRuns(sceneFile, scene, task, DIFFERING_WORLD, n)),
    ...(fitted
      ? [runRow('differing lab, fitted physics', await taskRuns(sceneFile, fitted, task, DIFFERING_WORLD, n))]
      : []),
    runRow('matching lab, scene physics', await taskRuns(sceneFile, scene, task, MATCHING_WORLD, n)),
  ];
  result.taskRuns = rows;
  result.missing = missing;
  printTable(
    `${scene.name}: task runs (success with 95% Wilson interval; time and actions of successes, mean ± 95% CI)`,
    rows,
  );
  for (const m of missing) process.stdout.write(`missing: ${m}\n`);
  const file = writeResult('physics-lab', result);
  writeFileSync(path.join(repoRoot, 'docs/physics-fit-lab.md'), page(result, rows, missing));
  process.stdout.write(`wrote ${file} and docs/physics-fit-lab.md\n`);
}

/** The generated page: the worlds, the fit's figures (when wired), the task runs. */
function page(result: Record<string, unknown>, rows: Row[], missing: string[]): string {
  const cols = Object.keys(rows[0] ?? {});
  const table = [
    `| ${cols.join(' | ')} |`,
    `|${cols.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cols.map((c) => String(r[c])).join(' | ')} |`),
  ].join('\n');
  return [
    '# The physics fit on the virtual lab (generated)',
    '',
    'Generated by `npm run bench -- physics-lab` (bench/physics-lab.ts) from bench/results/physics-lab.json;',
    'do not edit by hand. The differing world: ' + JSON.stringify(DIFFERING_WORLD) + '.',
    '',
    ...(result.fit ? ['## Fit', '', '```json', JSON.stringify(result.fit, null, 2), '```', ''] : []),
    '## Task runs',
    '',
    table,
    '',
    ...(missing.length > 0 ? ['## Missing', '', ...missing.map((m) => `- ${m}`), ''] : []),
  ].join('\n');
}
