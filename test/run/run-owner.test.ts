/**
 * The run owner (run/run-owner.ts) across runs: its fine workers start once and stay warm for the
 * next run, it is the one writer of the status (a run's statuses fold the lifecycle, each with the
 * owner's run time), its abort reaches the run's signal before the status says so and lets a
 * paused run go, and a run's log gets the run's events from its start to its release only.
 */
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { advanceRun, phaseOf, type RunLifecycle } from '#contract/run-lifecycle';
import type { SpawnWorker, WorkerTransport } from '../../src-main/parareal/worker-transport';
import { RunOwner } from '../../src-main/run/run-owner';
import type { RunRecorder } from '../../src-main/run/run-recorder';
import { ABORTED } from '../../src-main/run/run-report';

/** Workers that never start computing: what the test counts is how often one is spawned. */
function countingSpawn(): { spawn: SpawnWorker; spawned: () => number; killed: () => number } {
  let spawned = 0;
  let killed = 0;
  const spawn: SpawnWorker = () => {
    spawned++;
    const exits: ((code: number | null) => void)[] = [];
    const transport: WorkerTransport = {
      pid: 1000 + spawned,
      send: () => undefined,
      onMessage: () => undefined,
      onExit: (h) => exits.push(h),
      kill: () => {
        killed++;
        for (const h of exits) h(null);
      },
    };
    return transport;
  };
  return { spawn, spawned: () => spawned, killed: () => killed };
}

/** An owner on a clock the test moves, with every event it published. */
function owner(o: { spawn?: SpawnWorker; workers?: number } = {}) {
  let clock = 10;
  const events: ConsoleEvent[] = [];
  const run = new RunOwner({ workers: o.workers ?? 2, now: () => 1_700_000_000, clock: () => clock, ...o });
  run.publishTo((e) => events.push(e));
  return { run, events, later: (s: number) => (clock += s) };
}

/** A run's log as far as the owner feeds it. */
function fakeLog(): { recorder: RunRecorder; recorded: ConsoleEvent[]; operator: string[] } {
  const recorded: ConsoleEvent[] = [];
  const operator: string[] = [];
  const recorder = {
    event: (e: ConsoleEvent) => recorded.push(e),
    operator: (action: string, detail: string) => operator.push(`${action}: ${detail}`),
  } as unknown as RunRecorder;
  return { recorder, recorded, operator };
}

describe('the run owner', () => {
  it('starts its fine workers once: a second run finds them warm, close() stops them', async () => {
    const w = countingSpawn();
    const { run } = owner({ spawn: w.spawn, workers: 2 });
    expect(run.workersStarted()).toBe(false);
    expect(w.spawned()).toBe(0);

    run.begin('dry');
    const first = run.finePool();
    run.report({ event: { type: 'end', outcome: 'finished', reason: 'Goal reached' } });
    run.release();
    expect(w.spawned()).toBe(2);

    run.begin('dry');
    expect(run.finePool()).toBe(first);
    run.report({ event: { type: 'end', outcome: 'finished', reason: 'Goal reached' } });
    run.release();
    // Two runs, two workers started in all: none by the second run.
    expect(w.spawned()).toBe(2);
    expect(run.workersStarted()).toBe(true);

    await run.close();
    expect(w.killed()).toBe(2);
    expect(run.workersStarted()).toBe(false);
  });

  it("writes every status of a run, folding the lifecycle, with the owner's run time", () => {
    const { run, events, later } = owner();
    run.begin('real');
    later(1);
    run.report({ event: { type: 'arm' } });
    run.report({ event: { type: 'run-started' }, safety: 'safe', armed: true });
    later(2);
    run.pause('Paused by operator');
    later(4);
    run.resume();
    later(1);
    run.report({ event: { type: 'end', outcome: 'finished', reason: 'Goal reached' }, armed: false });
    later(5);
    run.report({ armed: false });
    run.release();

    const statuses = events.flatMap((e) => (e.type === 'run' ? [e.status] : []));
    // Each status is the lifecycle after its event, folded from idle: nothing else wrote one.
    let lifecycle: RunLifecycle = { state: 'idle' };
    const folded = ['start', 'arm', 'run-started', 'pause', 'resume', 'end'].map((type) => {
      const event =
        type === 'start'
          ? ({ type, mode: 'real' } as const)
          : type === 'end'
            ? ({ type, outcome: 'finished', reason: 'Goal reached' } as const)
            : ({ type } as { type: 'arm' | 'run-started' | 'pause' | 'resume' });
      const t = advanceRun(lifecycle, event);
      if (!t.ok) throw new Error(`the lifecycle refused ${type}`);
      lifecycle = t.next;
      return phaseOf(lifecycle);
    });
    expect(statuses.map((s) => s.phase)).toEqual([...folded, 'finished']);
    // The run's clock is the owner's, stopped at the end however long winding down takes.
    expect(statuses.map((s) => s.elapsed)).toEqual([0, 1, 1, 3, 7, 8, 8]);
    expect(run.lifecycle).toEqual({ state: 'ended', outcome: 'finished', reason: 'Goal reached' });
    expect(events.filter((e) => e.type === 'log')).toEqual([]);
  });

  it('aborts the run on its signal first, lets a paused run go, and says so once', async () => {
    const { run, events, later } = owner();
    run.begin('dry');
    run.report({ event: { type: 'run-started' }, safety: 'safe', armed: true });
    later(2);
    run.pause('Paused by operator');
    let resumed = false;
    const waiting = run.betweenActions().then(() => (resumed = true));
    await Promise.resolve();
    expect(resumed).toBe(false);

    const order: string[] = [];
    run.signal.addEventListener('abort', () => order.push(`signal, status ${run.status.phase}`));
    later(0.5);
    expect(run.abort(ABORTED)).toBe(true);
    order.push(`after, status ${run.status.phase}`);
    expect(order).toEqual(['signal, status paused', 'after, status aborted']);
    await waiting;
    expect(resumed).toBe(true);
    expect(run.status).toMatchObject({ phase: 'aborted', reason: ABORTED, safety: 'stopped', elapsed: 2.5 });

    // Winding down: a second abort hurries the run but says nothing more.
    const statuses = events.filter((e) => e.type === 'run').length;
    expect(run.abort(ABORTED)).toBe(true);
    expect(events.filter((e) => e.type === 'run')).toHaveLength(statuses);
    run.release();
    // Between runs there is nothing to abort; the next run starts with a fresh signal.
    expect(run.abort(ABORTED)).toBe(false);
    run.begin('dry');
    expect(run.aborted).toBe(false);
  });

  it("feeds a run's log from its start to its release, and only that run's", () => {
    const { run } = owner();
    const log = fakeLog();
    run.publishTo((e) => run.record(e));
    run.record({ type: 'log', at: 1, level: 'info', source: 'console', message: 'before the run' });
    run.begin('dry', log.recorder);
    expect(run.runRecorder).toBe(log.recorder);
    run.operator('run.abort', 'Esc key');
    run.abort(ABORTED);
    run.release();
    expect(run.runRecorder).toBeNull();
    run.record({ type: 'log', at: 2, level: 'info', source: 'console', message: 'after the run' });
    expect(log.operator).toEqual(['run.abort: Esc key']);
    expect(log.recorded.map((e) => (e.type === 'run' ? e.status.phase : e.type))).toEqual([
      'starting',
      'aborted',
    ]);
  });

  it('refuses to begin a run while one is in progress or the last still winds down', () => {
    const { run } = owner();
    run.begin('dry');
    expect(() => run.begin('dry')).toThrow(/already in progress/);
    run.abort(ABORTED);
    expect(() => run.begin('dry')).toThrow(/still winding down/);
    run.release();
    expect(run.begin('dry').phase).toBe('starting');
  });
});
