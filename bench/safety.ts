/**
 * How late the supervisor's watchdog tick runs under load, on the main thread (where every run's
 * supervisor ticks today) and in the safety thread (src-main/run/safety-thread), during console
 * dry runs on the in-process virtual lab with the planner's workers on every core and extra
 * CPU-bound processes at normal priority. Both clocks tick every 5 ms; lateness is how much
 * longer than 5 ms each tick waited after the one before.
 *
 * The main thread's figure is a probe timer on the event loop the run's supervisor shares with
 * the planner, recorder and UI bridge: it waits exactly as that supervisor's tick waits. The
 * thread's supervisor is armed on motion capture from a virtual lab in a process of its own (as
 * Motive runs on its own PC), not the dry runs' in-process one, whose frames stop whenever the
 * loaded main thread stalls. It has no robot to command, so the only stops it can make are
 * motion-capture ones: each is counted and it is armed again. The dry runs' own stops are
 * counted too.
 *
 *   npm run bench -- safety [--seconds S] [--hogs N]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createConsole } from '../src-main/console/create-console';
import { outcomeOf } from '#contract/run-lifecycle';
import { latenessStats } from '../src-main/run/safety-thread/core';
import { SafetyThread } from '../src-main/run/safety-thread/safety-thread';
import type { TickStats } from '../src-main/run/safety-thread/messages';
import { loadSetup, type Setup } from '../src-main/calibration/setup-file';
import { loadSceneFile } from '../src-main/common/config-files';
import type { Scene } from '#contract/scene';
import { z } from 'zod';
import { printTable, writeResult } from './report';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TICK_MS = 5;
const green = { ok: true, checks: [] };

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '60' },
      hogs: { type: 'string', default: '2' },
      scene: { type: 'string', default: 'isrr-obstacle.json' },
    },
  });
  const seconds = Number(values.seconds);
  const hogCount = Number(values.hogs);
  const sessionsDir = mkdtempSync(path.join(os.tmpdir(), 'parapush-safety-bench-'));
  const { core, close } = createConsole({
    lab: { kind: 'virtual', multicast: false },
    scenesDir: path.join(root, 'resources/scenes'),
    tasksDir: path.join(root, 'resources/tasks'),
    sceneFile: values.scene,
    sessionsDir,
    report: () => {},
  });
  const hogs: ChildProcess[] = [];
  let thread: SafetyThread | undefined;
  let stopMotive: (() => Promise<void>) | undefined;
  let probe: NodeJS.Timeout | undefined;
  const mainLateness: number[] = [];
  const runs: { outcome: string; reason: string | null }[] = [];
  const threadStops: string[] = [];
  /** Cleared once the load ends: the thread's closing abort is no stop to count. */
  let measuring = true;
  try {
    const motive = await startLabProcess(values.scene, sessionsDir);
    stopMotive = motive.stop;
    thread = await SafetyThread.start({
      natnet: { serverAddress: '127.0.0.1', localAddress: '127.0.0.1', commandPort: motive.natnetCommand },
      scene: motive.scene,
      setup: motive.setup,
      supervisor: { maxSpeed: motive.scene.limits.maxPusherSpeed },
      tickMs: TICK_MS,
    });
    const t = thread;
    await new Promise<void>((resolve) => {
      const on = (p: { ok: boolean }) => p.ok && (t.off('poses', on), resolve());
      t.on('poses', on);
    });
    // Armed and running on motion capture alone; a stop is counted and the thread armed again.
    t.on('decision', (d) => {
      if (!measuring || d.kind !== 'stop') return;
      threadStops.push(d.message);
      t.reset();
      void t.arm(green).then((ok) => ok && t.startRun());
    });
    if (!(await t.arm(green))) throw new Error('the safety thread did not arm');
    t.startRun();

    for (let i = 0; i < hogCount; i++) {
      // CPU-bound at normal priority, as other programs on the operator's machine may be.
      hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
    // Both figures count from here, once the load runs.
    await t.tickStats(true);
    let last = performance.now();
    probe = setInterval(() => {
      const now = performance.now();
      mainLateness.push(Math.max(0, now - last - TICK_MS));
      last = now;
    }, TICK_MS);

    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const started = await core.handle({ type: 'run.start', mode: 'dry' });
      if (!started.ok) throw new Error(started.error);
      for (;;) {
        const s = core.snapshot().run;
        const outcome = outcomeOf(s.phase);
        if (outcome) {
          runs.push({ outcome, reason: s.reason });
          break;
        }
        if (performance.now() > end) {
          await core.handle({ type: 'run.abort', source: 'remote' });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      process.stderr.write(`dry run ${runs.length}: ${runs.at(-1)!.outcome} (${runs.at(-1)!.reason})\n`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    measuring = false;
    clearInterval(probe);
    for (const h of hogs) h.kill('SIGKILL');
    const threadStats = thread ? await thread.tickStats() : undefined;
    await thread?.close();
    await stopMotive?.();
    await close();
    rmSync(sessionsDir, { recursive: true, force: true });
    if (threadStats) report(latenessStats(mainLateness), threadStats.ticks, threadStats.frameGaps);
  }

  function report(main: TickStats, inThread: TickStats, frameGaps: TickStats): void {
    const staleness = (reasons: (string | null)[]) =>
      reasons.filter((r) => r !== null && /^(Motion capture (stale|frozen)|No robot state)/.test(r)).length;
    const rows = [
      {
        where: 'main thread (today)',
        ...figures(main),
        'staleness stops': staleness(runs.map((r) => r.reason)),
      },
      { where: 'safety thread', ...figures(inThread), 'staleness stops': staleness(threadStops) },
    ];
    printTable(
      `Supervisor tick lateness, ms (${TICK_MS} ms period; ${runs.length} dry runs in ${seconds} s, planner on every core, ${hogCount} CPU-bound processes)`,
      rows,
    );
    // A staleness stop with frames arriving every few ms would be the thread's fault; with gaps
    // over the limit, motion capture really stopped (here: its process starved of CPU).
    printTable('Motion-capture frame gaps at the safety thread, ms', [
      {
        frames: frameGaps.ticks,
        p50: round(frameGaps.p50),
        p99: round(frameGaps.p99),
        max: round(frameGaps.max),
      },
    ]);
    writeResult('safety', {
      tickMs: TICK_MS,
      seconds,
      hogs: hogCount,
      scene: values.scene,
      lateness: { main, thread: inThread },
      frameGaps,
      runs,
      threadStops,
      rows,
    });
  }
}

function figures(s: TickStats) {
  return { ticks: s.ticks, p50: round(s.p50), p99: round(s.p99), max: round(s.max) };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * A virtual lab in a child process (`parapush lab`) on the scene: its NatNet command port, scene
 * and setup, and how to stop it.
 */
async function startLabProcess(
  sceneFile: string,
  dir: string,
): Promise<{ natnetCommand: number; scene: Scene; setup: Setup; stop(): Promise<void> }> {
  const config = path.join(dir, 'lab.json');
  const setupFile = path.join(dir, 'setup.json');
  const ports = {
    rtde: 0,
    dashboard: 0,
    secondary: 0,
    realtime: 0,
    gripper: 0,
    natnetCommand: 0,
    natnetData: 0,
  };
  writeFileSync(
    config,
    JSON.stringify({
      scene: path.join(root, 'resources/scenes', sceneFile),
      ports,
      mocap: { multicast: false },
    }),
  );
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin/parapush.mjs'), 'lab', '--config', config, '--setup-out', setupFile, '--json'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`parapush lab exited (code ${code})`)));
    });
    const info = labInfoSchema.parse(JSON.parse(line));
    return {
      natnetCommand: info.ports.natnetCommand,
      scene: loadSceneFile(path.join(root, 'resources/scenes', sceneFile)),
      setup: loadSetup(info.setup),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

const labInfoSchema = z.object({ ports: z.object({ natnetCommand: z.number().int() }), setup: z.string() });
