/**
 * Dry runs that fail only for real causes: N console dry runs in one console (wired as `npm start`
 * wires it: its virtual lab's devices in their own thread, each run's supervisor in the lab link's
 * safety thread, the planner's workers on every core) while CPU-bound processes run at normal
 * priority in sessions of their own, as other programs on an operator's two-core machine may. Each run's outcome is printed
 * as it ends; at the end, per run, the longest gap between motion-capture frames and between robot
 * states as the console received them (from its session log, with its cause: session/stream-gaps.ts),
 * the planner's overrun warnings and the control-program restarts the event log showed. A run that
 * stopped for stale or frozen motion capture, a missing robot state or a stopped control program
 * counts against the soak: on a real lab those are faults of the lab, and here the lab is this
 * machine's simulator. The verdict is printed and written with the figures.
 *
 *   npm run bench -- dry-run-soak [--runs N] [--hogs N] [--max-actions N] [--scene FILE]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { commandResultSchemas, type ConsoleEvent } from '#contract/console-api';
import { describePriority } from '../src-main/common/thread-priority';
import { sessionFileNames } from '../src-main/session/sessions-dir';
import type { RunStreamGaps, StreamGaps } from '../src-main/session/stream-gaps';
import { betweenRuns, consoleOnVirtualLab, dryRunToEnd } from './console-dry-runs';
import { logFileGaps } from './dry-runs';
import { printTable, writeResult } from './report';

/**
 * Stops, and pre-flight refusals, that are the simulator's fault on a loaded machine, never the
 * task's: stale or frozen motion capture, no robot state, a control program not running. The soak
 * allows none.
 */
const SIMULATOR_STOPS =
  /(Motion capture (stale|frozen)|No robot state|Control program not running|Motion capture fresh, every bound body tracked: .*stale|Control program playing)/;

interface SoakRun {
  outcome: string;
  reason: string | null;
  seconds: number;
  /** The planner's overrun warnings during the run (contract/planning-overrun.ts). */
  overrunWarnings: string[];
  /** Control-program restarts the run logged before its checks. */
  programRestarts: number;
  /** Load average (1 min) when the run ended. */
  load: number;
  /** How evenly frames and robot states reached the console, from the run's session log. */
  gaps: RunStreamGaps;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: 'string', default: '20' },
      hogs: { type: 'string', default: '2' },
      'max-actions': { type: 'string' },
      scene: { type: 'string', default: 'isrr-obstacle.json' },
    },
  });
  const runs = Number(values.runs);
  const hogCount = Number(values.hogs);
  const { core, lab, close, sessionsDir } = consoleOnVirtualLab(values.scene, 'parapush-dry-run-soak-');
  const hogs: ChildProcess[] = [];
  const done: SoakRun[] = [];
  let current: SoakRun | null = null;
  core.subscribe((e: ConsoleEvent) => {
    if (!current || e.type !== 'log') return;
    if (e.source === 'planner' && e.message.startsWith('Planning overruns'))
      current.overrunWarnings.push(e.message);
    if (e.source === 'robot' && e.message.startsWith('Control program was not running'))
      current.programRestarts++;
  });
  let priority: { lab: string; safety: string } = { lab: 'unknown', safety: 'unknown' };
  const command = `npm run bench -- dry-run-soak ${args.join(' ')}`.trim();
  // Written after every run, so that a soak cut short still leaves what it measured.
  const write = (final: boolean): void => {
    const r = soakResult(done, runs, hogCount, values['max-actions'], priority);
    if (final) {
      printTable(
        `Dry-run soak: ${done.length} console dry runs with ${hogCount} CPU-bound processes at normal priority`,
        r.rows,
      );
      printTable('Soak summary', [r.summary]);
      process.stdout.write(`${r.verdict}\n`);
    }
    writeResult('dry-run-soak', { scene: values.scene, command, ...r });
  };
  try {
    if (values['max-actions'] !== undefined) {
      const got = await core.handle({ type: 'settings.get' });
      if (!got.ok) throw new Error(got.error);
      const { settings } = commandResultSchemas['settings.get'].parse(got.result);
      const set = await core.handle({
        type: 'settings.set',
        settings: { ...settings, maxExecutedActions: Number(values['max-actions']) },
      });
      if (!set.ok) throw new Error(set.error);
    }
    for (let i = 0; i < hogCount; i++)
      // CPU-bound at normal priority, as other programs on the operator's machine may be: each in
      // a session of its own (detached), as a program started from another terminal is, so that
      // Linux's autogroup scheduling shares the cores between it and the console's session.
      hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', detached: true }));
    for (let n = 0; n < runs; n++) {
      const run: SoakRun = {
        outcome: '',
        reason: null,
        seconds: 0,
        overrunWarnings: [],
        programRestarts: 0,
        load: 0,
        gaps: { mocap: null, robot: null },
      };
      current = run;
      const t0 = performance.now();
      const ended = await dryRunToEnd(core);
      run.outcome = ended.outcome;
      run.reason = ended.reason;
      run.seconds = (performance.now() - t0) / 1000;
      run.load = os.loadavg()[0]!;
      current = null;
      const thread = lab.virtualLab.thread();
      const link = lab.virtualLab.current();
      if (thread && link)
        priority = { lab: describePriority(thread.priority), safety: describePriority(link.safety.priority) };
      await betweenRuns();
      // This run's log: the newest (logs are named by their start time).
      const logs = (await sessionFileNames(sessionsDir)).sort();
      if (logs.length === n + 1) run.gaps = await logFileGaps(path.join(sessionsDir, logs[n]!));
      done.push(run);
      process.stderr.write(
        `dry run ${n + 1}/${runs}: ${run.outcome} (${run.reason}) in ${run.seconds.toFixed(0)} s, longest frame gap ${ms(run.gaps.mocap)} ms, state gap ${ms(run.gaps.robot)} ms, load ${run.load.toFixed(1)}${run.overrunWarnings.length > 0 ? ', planning overran the control' : ''}\n`,
      );
      write(false);
    }
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
    await close();
    // Logs with a gap over the staleness limit are kept, to see where in its run it came.
    if (done.some((r) => (r.gaps.mocap?.max ?? 0) > 0.1 || (r.gaps.robot?.max ?? 0) > 0.1))
      process.stderr.write(`session logs of these runs (in file-name order): ${sessionsDir}\n`);
    else rmSync(sessionsDir, { recursive: true, force: true });
  }
  write(true);
}

const ms = (g: StreamGaps | null): string => (g ? (g.max * 1000).toFixed(1) : '-');

function soakResult(
  done: SoakRun[],
  runs: number,
  hogs: number,
  maxActions: string | undefined,
  priority: { lab: string; safety: string },
) {
  const rows = done.map((r, i) => ({
    run: i + 1,
    outcome: r.outcome,
    reason: r.reason ?? '',
    s: Number(r.seconds.toFixed(1)),
    'longest frame gap ms': ms(r.gaps.mocap),
    'frame gap cause': r.gaps.mocap?.longest?.cause ?? '-',
    'longest state gap ms': ms(r.gaps.robot),
    'state gap cause': r.gaps.robot?.longest?.cause ?? '-',
    'overrun warned': r.overrunWarnings.length > 0 ? 'yes' : 'no',
    'program restarts': r.programRestarts,
    load: Number(r.load.toFixed(1)),
  }));
  const simulatorStops = done.filter((r) => r.reason !== null && SIMULATOR_STOPS.test(r.reason));
  const longest = (pick: (r: SoakRun) => StreamGaps | null): string => {
    const all = done.map((r) => pick(r)?.max).filter((v): v is number => v !== undefined);
    return all.length > 0 ? (Math.max(...all) * 1000).toFixed(1) : '-';
  };
  const summary = {
    runs: `${done.length} of ${runs}`,
    hogs,
    'max actions': maxActions ?? 'console default',
    'stops for stale motion capture, robot state or a stopped program': simulatorStops.length,
    'longest frame gap ms': longest((r) => r.gaps.mocap),
    'longest state gap ms': longest((r) => r.gaps.robot),
    'runs warned of planning overruns': done.filter((r) => r.overrunWarnings.length > 0).length,
    'program restarts': done.reduce((a, r) => a + r.programRestarts, 0),
    'lab thread': priority.lab,
    'safety thread': priority.safety,
  };
  const verdict =
    simulatorStops.length === 0
      ? `PASS: no run of ${done.length} stopped for stale motion capture, robot state or a stopped control program`
      : `FAIL: ${simulatorStops.length} run(s) stopped for the simulator's sake: ${simulatorStops.map((r) => r.reason).join('; ')}`;
  return {
    verdict,
    summary,
    rows,
    overrunWarnings: done.flatMap((r) => r.overrunWarnings.slice(0, 1)),
  };
}
