/**
 * A supervisor's decisions as a run reports them (run/run-report.ts), folded through the run's
 * status (run/run-status.ts) as the console core and a run's recorder fold them: a safety stop
 * fails the run the moment the arm stops, with the stop's words, and the run's later report of its
 * end changes nothing; the operator's stop is the abort; the task's own end waits for the run's.
 */
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { RunOwner } from '../../src-main/run/run-owner';
import { ABORTED, RunReporter } from '../../src-main/run/run-report';
import { describeStop, type StopReason } from '../../src-main/safety/stop-reasons';
import type { Decision } from '../../src-main/safety/supervisor';

/** Wall clock, s since the epoch. */
const T0 = 1_700_000_000;
/** Monotonic clock at the run's start, s. */
const t0 = 100;

/** A started run on its owner, whose reporter the supervisor's decisions go to. */
function startedRun() {
  const events: ConsoleEvent[] = [];
  let clock = t0;
  const run = new RunOwner({ workers: 1, now: () => T0, clock: () => clock });
  run.publishTo((e) => events.push(e));
  const report = new RunReporter(run, { realTime: true });
  run.begin('real');
  report.decision({ kind: 'armed', at: t0 + 0.5 });
  report.decision({ kind: 'run-started', at: t0 + 0.5 });
  const stop = (kind: 'stop' | 'command-refused', reason: StopReason, after: number): Decision => {
    clock = t0 + after;
    return { kind, at: t0 + after, reason, message: describeStop(reason) };
  };
  const logs = (level: 'warn' | 'error'): string[] =>
    events.flatMap((e) => (e.type === 'log' && e.level === level ? [e.message] : []));
  // A report the lifecycle refused is told as an error of the run.
  const refused = (): string[] =>
    events.flatMap((e) => (e.type === 'log' && e.source === 'run' && e.level === 'error' ? [e.message] : []));
  return { run, report, refused, stop, logs, events, later: (s: number) => (clock += s) };
}

describe('a supervisor stop in the run status', () => {
  it("fails the run as the arm stops, with the stop's words; the run's end then changes nothing", () => {
    const { run, report, refused, stop, logs } = startedRun();
    expect(run.status).toMatchObject({ phase: 'running', armed: true, safety: 'safe' });
    const reason: StopReason = { code: 'workspace', detail: 'the pusher would leave the table' };
    const words = describeStop(reason);
    // A refused command is the stop that follows it: the stop moves the lifecycle.
    report.decision(stop('command-refused', reason, 2));
    expect(run.status).toMatchObject({ phase: 'running', safety: 'stopped', reason: words });
    report.decision(stop('stop', reason, 2));
    expect(run.lifecycle).toEqual({ state: 'stopping', outcome: 'failed', reason: words });
    expect(run.status).toMatchObject({
      phase: 'failed',
      reason: words,
      safety: 'stopped',
      armed: false,
      elapsed: expect.closeTo(2, 9),
    });
    // The MPC loop, stopped by the supervisor, reports how the run ended a while later.
    report.ended({ end: { cause: 'safety-stop' }, reason: 'the plant was stopped', actions: 7 });
    expect(run.status).toMatchObject({ phase: 'failed', reason: words, elapsed: expect.closeTo(2, 9) });
    expect(refused()).toEqual([]);
    expect(logs('error')).toEqual([]);
    expect(logs('warn')).toEqual(['run failed after 7 action(s): the plant was stopped']);
  });

  it.each<StopReason>([
    { code: 'mocap-stale', body: 'slider', age: 0.12 },
    { code: 'protective-stop' },
    { code: 'robot-link-lost', message: 'connection reset' },
  ])('fails the run at once on $code', (reason) => {
    const { run, report, refused, stop } = startedRun();
    report.decision(stop('stop', reason, 1));
    expect(run.status).toMatchObject({ phase: 'failed', reason: describeStop(reason) });
    report.ended({ end: { cause: 'safety-stop' }, reason: describeStop(reason), actions: 1 });
    expect(run.status.phase).toBe('failed');
    expect(refused()).toEqual([]);
  });

  it("is the abort when the operator's, and the abort holds against the run's end", () => {
    const { run, report, refused, stop } = startedRun();
    report.decision(stop('stop', { code: 'operator-abort' }, 1));
    expect(run.status).toMatchObject({ phase: 'aborted', reason: 'Aborted by operator' });
    report.ended({ end: { cause: 'operator-abort' }, reason: 'Aborted by operator', actions: 1 });
    expect(run.status.phase).toBe('aborted');
    expect(refused()).toEqual([]);
  });

  it("reports the operator's abort once: the owner's, not again from the stop or the run's end", () => {
    const { run, report, refused, stop, later, logs, events } = startedRun();
    const from = events.length;
    const statuses = (): string[] =>
      events.slice(from).flatMap((e) => (e.type === 'run' ? [`${e.status.phase} ${e.status.elapsed}`] : []));
    later(1.5);
    expect(run.abort(ABORTED)).toBe(true);
    expect(run.aborted).toBe(true);
    // The supervisor's stop reaches the reporter a little later, and the run's end later still.
    report.decision(stop('stop', { code: 'operator-abort' }, 1.6));
    later(2);
    report.ended({ end: { cause: 'task', result: 'aborted' }, reason: ABORTED, actions: 1 });
    // One transition to aborted, the clock stopped at the abort; the rest only readings.
    expect(statuses()).toEqual(['aborted 1.5', 'aborted 1.5', 'aborted 1.5']);
    expect(run.status).toMatchObject({ phase: 'aborted', reason: ABORTED, armed: false, elapsed: 1.5 });
    expect(logs('warn')).toEqual([`run aborted after 1 action(s): ${ABORTED}`]);
    expect(refused()).toEqual([]);
    // A second abort of the same run says nothing more.
    const before = statuses().length;
    run.abort(ABORTED);
    expect(statuses()).toHaveLength(before);
  });

  it("leaves the task's own end to the run's report of it", () => {
    const { run, report, refused, stop, logs } = startedRun();
    report.decision(stop('stop', { code: 'task-ended', outcome: 'success: goal reached' }, 3));
    // The task's own end is no safety stop: safe, disarmed, and no supervisor STOP in the log.
    expect(run.status).toMatchObject({ phase: 'running', safety: 'safe', armed: false });
    expect(logs('warn')).toEqual([]);
    report.ended({ end: { cause: 'task', result: 'success' }, reason: 'goal reached', actions: 9 });
    expect(run.status).toMatchObject({
      phase: 'finished',
      safety: 'safe',
      reason: 'Goal reached',
      elapsed: expect.closeTo(3, 9),
    });
    expect(refused()).toEqual([]);
  });

  it.each([
    [{ cause: 'task', result: 'action-limit' }, '20 actions executed'],
    [{ cause: 'task', result: 'failure' }, 'object hit obstacle'],
    [{ cause: 'not-armed' }, 'pre-flight checks failed: motion capture: stale'],
  ] as const)('fails the run when it ends as %o, with its reason', (end, reason) => {
    const { run, report, refused, logs } = startedRun();
    report.ended({ end, reason, actions: 3 });
    expect(run.status).toMatchObject({ phase: 'failed', reason, armed: false });
    expect(logs('warn')).toEqual([`run failed after 3 action(s): ${reason}`]);
    expect(refused()).toEqual([]);
  });
});
