/**
 * A supervisor's decisions as a run reports them (run/run-report.ts), folded through the run's
 * status (run/run-status.ts) as the console core and a run's recorder fold them: a safety stop
 * fails the run the moment the arm stops, with the stop's words, and the run's later report of its
 * end changes nothing; the operator's stop is the abort; the task's own end waits for the run's.
 */
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { monotonicSeconds } from '#contract/time';
import { RunReporter } from '../../src-main/run/run-report';
import { RunStatusTracker } from '../../src-main/run/run-status';
import { describeStop, type StopReason } from '../../src-main/safety/stop-reasons';
import type { Decision } from '../../src-main/safety/supervisor';

/** Wall clock, s since the epoch. */
const T0 = 1_700_000_000;

/** A started run whose reporter feeds a status tracker; `t0` is its monotonic start. */
function startedRun(aborted = false) {
  const refused: string[] = [];
  const events: ConsoleEvent[] = [];
  const run = new RunStatusTracker(
    () => T0,
    (words) => refused.push(words),
  );
  const t0 = monotonicSeconds();
  const report = new RunReporter(
    { status: (change) => run.apply(change), emit: (e) => events.push(e) },
    t0,
    () => aborted,
  );
  run.apply({ event: { type: 'start', mode: 'real' } });
  report.decision({ kind: 'armed', at: t0 + 0.5 });
  report.decision({ kind: 'run-started', at: t0 + 0.5 });
  const stop = (kind: 'stop' | 'command-refused', reason: StopReason, after: number): Decision => ({
    kind,
    at: t0 + after,
    reason,
    message: describeStop(reason),
  });
  const logs = (level: 'warn' | 'error'): string[] =>
    events.flatMap((e) => (e.type === 'log' && e.level === level ? [e.message] : []));
  return { run, report, refused, stop, logs };
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
    report.ended({ outcome: 'stopped', reason: 'the plant was stopped', actions: 7 });
    expect(run.status).toMatchObject({ phase: 'failed', reason: words, elapsed: expect.closeTo(2, 9) });
    expect(refused).toEqual([]);
    expect(logs('error')).toEqual([]);
    expect(logs('warn')).toEqual(['run stopped after 7 action(s): the plant was stopped']);
  });

  it.each<StopReason>([
    { code: 'mocap-stale', body: 'slider', age: 0.12 },
    { code: 'protective-stop' },
    { code: 'robot-link-lost', message: 'connection reset' },
  ])('fails the run at once on $code', (reason) => {
    const { run, report, refused, stop } = startedRun();
    report.decision(stop('stop', reason, 1));
    expect(run.status).toMatchObject({ phase: 'failed', reason: describeStop(reason) });
    report.ended({ outcome: 'stopped', reason: describeStop(reason), actions: 1 });
    expect(run.status.phase).toBe('failed');
    expect(refused).toEqual([]);
  });

  it("is the abort when the operator's, and the abort holds against the run's end", () => {
    const { run, report, refused, stop } = startedRun(true);
    report.decision(stop('stop', { code: 'operator-abort' }, 1));
    expect(run.status).toMatchObject({ phase: 'aborted', reason: 'Aborted by operator' });
    report.ended({ outcome: 'stopped', reason: 'Aborted by operator', actions: 1 });
    expect(run.status.phase).toBe('aborted');
    expect(refused).toEqual([]);
  });

  it("leaves the task's own end to the run's report of it", () => {
    const { run, report, refused, stop, logs } = startedRun();
    report.decision(stop('stop', { code: 'task-ended', outcome: 'success: goal reached' }, 3));
    // The task's own end is no safety stop: safe, disarmed, and no supervisor STOP in the log.
    expect(run.status).toMatchObject({ phase: 'running', safety: 'safe', armed: false });
    expect(logs('warn')).toEqual([]);
    report.ended({ outcome: 'success', reason: 'goal reached', actions: 9 });
    expect(run.status).toMatchObject({
      phase: 'finished',
      safety: 'safe',
      reason: 'Goal reached',
      elapsed: expect.closeTo(3, 9),
    });
    expect(refused).toEqual([]);
  });
});
