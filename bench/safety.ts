/**
 * How late the supervisor's watchdog tick runs under load: in the safety thread
 * (src-main/lab-link/safety-thread), where every run's supervisor ticks, and on the main thread for
 * comparison, during console dry runs on the in-process virtual lab with the planner's workers on
 * every core and extra CPU-bound processes at normal priority. Both clocks tick every 5 ms;
 * lateness is how much longer than 5 ms each tick waited after the one before.
 *
 * The safety thread's figure is the tick of the thread that runs the dry runs' own supervisors
 * (the virtual lab link's thread, which also owns its RTDE and NatNet clients). The main thread's
 * is a probe timer on the event loop the planner, the recorder and the UI bridge share: what a
 * supervisor ticking there would wait. The dry runs' staleness stops are counted, and the gaps
 * between motion-capture frames as they reached the thread tell a late tick from frames that
 * really stopped: the in-process virtual lab sends from the main thread, so its frames and robot
 * states stall when that thread does (a real lab's devices do not).
 *
 *   npm run bench -- safety [--seconds S] [--hogs N]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { monotonicSeconds } from '../src-main/common/clock';
import { every } from '../src-main/common/timers';
import { parseArgs } from 'node:util';
import { describePriority } from '../src-main/common/thread-priority';
import { latenessStats } from '../src-main/lab-link/safety-thread/core';
import type { TickStats } from '../src-main/lab-link/safety-thread/messages';
import type { SafetyStats, SafetyThread } from '../src-main/lab-link/safety-thread/safety-thread';
import type { LabLink } from '../src-main/lab-link/lab-link';
import { betweenRuns, consoleOnVirtualLab, dryRunToEnd } from './console-dry-runs';
import { printTable, writeResult } from './report';
/** The supervisor's tick period, s (lab-link.ts). */
const TICK = 0.005;

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
  const { core, lab, close, sessionsDir } = consoleOnVirtualLab(values.scene, 'parapush-safety-bench-');
  const hogs: ChildProcess[] = [];
  let probe: NodeJS.Timeout | undefined;
  const mainLateness: number[] = [];
  const runs: { outcome: string; reason: string | null }[] = [];
  let threadStats: SafetyStats | undefined;
  let threadPriority: SafetyThread['priority'] | undefined;
  try {
    // The virtual lab connects at launch on the bench's scene: its link's thread runs every dry run's supervisor.
    const link = await connected(() => lab.virtualLab.current(), 60);
    threadPriority = link.safety.priority;

    for (let i = 0; i < hogCount; i++) {
      // CPU-bound at normal priority, as other programs on the operator's machine may be.
      hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
    // Both figures count from here, once the load runs.
    await link.safety.tickStats(true);
    let last = monotonicSeconds();
    probe = every(TICK, () => {
      const now = monotonicSeconds();
      // Lateness in ms, as the thread's.
      mainLateness.push(Math.max(0, now - last - TICK) * 1000);
      last = now;
    });

    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      runs.push(
        await dryRunToEnd(core, async () => {
          if (performance.now() > end) await core.handle({ type: 'run.abort', source: 'remote' });
        }),
      );
      process.stderr.write(`dry run ${runs.length}: ${runs.at(-1)!.outcome} (${runs.at(-1)!.reason})\n`);
      await betweenRuns();
    }
    // The runs must all have been on this link (one scene): their supervisors ticked in its thread.
    if (lab.virtualLab.current() !== link) throw new Error('the dry runs moved to another lab link');
    threadStats = await link.safety.tickStats();
  } finally {
    clearInterval(probe);
    for (const h of hogs) h.kill('SIGKILL');
    await close();
    rmSync(sessionsDir, { recursive: true, force: true });
    if (threadStats) report(latenessStats(mainLateness), threadStats.ticks, threadStats.frameGaps);
  }

  function report(main: TickStats, inThread: TickStats, frameGaps: TickStats): void {
    const staleness = (reasons: (string | null)[]) =>
      reasons.filter((r) => r !== null && /^(Motion capture (stale|frozen)|No robot state)/.test(r)).length;
    // Every dry run's supervisor is the thread's: its staleness stops are the thread's row.
    const rows = [
      {
        where: 'safety thread',
        ...figures(inThread),
        'staleness stops': staleness(runs.map((r) => r.reason)),
      },
      { where: 'main thread (probe)', ...figures(main) },
    ];
    printTable(
      `Supervisor tick lateness, ms (${TICK * 1000} ms period; ${runs.length} dry runs in ${seconds} s, planner on every core, ${hogCount} CPU-bound processes; safety thread at ${threadPriority ? describePriority(threadPriority) : 'unknown priority'})`,
      rows,
    );
    // A staleness stop with frames arriving every few ms would be the thread's fault; with gaps
    // over the limit, motion capture really stopped (here: the in-process lab's thread stalled).
    printTable('Motion-capture frame gaps at the safety thread, ms', [
      {
        frames: frameGaps.ticks,
        p50: round(frameGaps.p50),
        p99: round(frameGaps.p99),
        max: round(frameGaps.max),
      },
    ]);
    writeResult('safety', {
      tick: TICK,
      seconds,
      hogs: hogCount,
      scene: values.scene,
      lateness: { main, thread: inThread },
      threadPriority,
      frameGaps,
      runs,
      rows,
    });
  }
}

function figures(s: TickStats) {
  return { ticks: s.ticks, p50: round(s.p50), p99: round(s.p99), max: round(s.max) };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Polls `current` until it gives a link, for up to `seconds`. */
async function connected(current: () => LabLink | null, seconds: number): Promise<LabLink> {
  const by = performance.now() + seconds * 1000;
  for (;;) {
    const link = current();
    if (link) return link;
    if (performance.now() > by) throw new Error('the virtual lab did not connect');
    await new Promise((r) => setTimeout(r, 100));
  }
}
