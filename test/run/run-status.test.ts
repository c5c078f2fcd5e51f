/**
 * A run's status as its reports change it (run/run-status.ts): the lifecycle decides the phase,
 * a start begins a fresh status, an ending (an abort, a safety stop, the run's end) keeps its reason
 * and the run time its owner gives, the first ending holds against late reports (whose readings still count), and
 * any other rejected report is told.
 */
import { describe, expect, it } from 'vitest';
import { RunStatusTracker } from '../../src-main/run/run-status';

/** Wall clock, s since the epoch. */
const T0 = 1_700_000_000;

function tracker() {
  let now = T0;
  const refused: string[] = [];
  const run = new RunStatusTracker(
    () => now,
    (words) => refused.push(words),
  );
  return { run, refused, advance: (s: number) => (now += s) };
}

describe('run status tracker', () => {
  it('starts a fresh status, then follows the lifecycle with the readings', () => {
    const { run, refused } = tracker();
    expect(run.apply({ event: { type: 'start', mode: 'real' } })).toEqual({
      phase: 'starting',
      mode: 'real',
      reason: null,
      startedAt: T0,
      elapsed: 0,
      safety: 'unknown',
      armed: false,
    });
    run.apply({ reason: 'Pre-flight checks green: arm to start the real run' });
    expect(
      run.apply({ event: { type: 'run-started' }, safety: 'safe', armed: true, reason: null }),
    ).toMatchObject({
      phase: 'running',
      safety: 'safe',
      armed: true,
      reason: null,
    });
    expect(run.apply({ event: { type: 'pause' }, reason: 'Paused by operator' }).phase).toBe('paused');
    expect(run.lifecycle).toEqual({ state: 'paused' });
    expect(refused).toEqual([]);
  });

  it("ends with the ending reason and the run time the run's owner gives", () => {
    const { run, advance } = tracker();
    run.apply({ event: { type: 'start', mode: 'dry' } });
    run.apply({ event: { type: 'run-started' } });
    advance(2.5);
    expect(
      run.apply({
        event: { type: 'abort', reason: 'Aborted by operator' },
        safety: 'stopped',
        armed: false,
        elapsed: 2.4,
      }),
    ).toMatchObject({ phase: 'aborted', reason: 'Aborted by operator', elapsed: 2.4, safety: 'stopped' });
  });

  it("keeps the first ending against the run's late words, whose readings still count", () => {
    const { run, refused, advance } = tracker();
    run.apply({ event: { type: 'start', mode: 'dry' } });
    run.apply({ event: { type: 'run-started' } });
    run.apply({ event: { type: 'abort', reason: 'Aborted by operator' }, elapsed: 1.2 });
    advance(3);
    const late = run.apply({
      event: { type: 'end', outcome: 'failed', reason: 'run failed' },
      armed: false,
      elapsed: 1.25,
    });
    expect(late).toMatchObject({
      phase: 'aborted',
      reason: 'Aborted by operator',
      elapsed: 1.25,
      armed: false,
    });
    expect(refused).toEqual([]);
    run.apply({ event: { type: 'released' } });
    expect(run.lifecycle).toEqual({ state: 'ended', outcome: 'aborted', reason: 'Aborted by operator' });
    expect(run.status.phase).toBe('aborted');
  });

  it("fails at once on a safety stop, with the stop's words, and keeps it against the run's end", () => {
    const { run, refused, advance } = tracker();
    const stale = 'Motion capture stale: slider not seen for 120 ms';
    run.apply({ event: { type: 'start', mode: 'real' } });
    run.apply({ event: { type: 'run-started' }, safety: 'safe', armed: true, reason: null });
    advance(4);
    expect(
      run.apply({
        event: { type: 'safety-stop', reason: stale },
        safety: 'stopped',
        armed: false,
        elapsed: 4,
      }),
    ).toMatchObject({ phase: 'failed', reason: stale, elapsed: 4, safety: 'stopped', armed: false });
    expect(run.lifecycle).toEqual({ state: 'stopping', outcome: 'failed', reason: stale });
    advance(2);
    // The MPC loop, stopped by the supervisor, reports its end in its own words: quietly refused.
    const late = run.apply({
      event: { type: 'end', outcome: 'failed', reason: 'run stopped' },
      armed: false,
      elapsed: 4.05,
    });
    expect(late).toMatchObject({ phase: 'failed', reason: stale, elapsed: 4.05 });
    expect(refused).toEqual([]);
    run.apply({ event: { type: 'released' } });
    expect(run.lifecycle).toEqual({ state: 'ended', outcome: 'failed', reason: stale });
  });

  it('tells of a report the lifecycle rejects for any other reason, and keeps the phase', () => {
    const { run, refused } = tracker();
    run.apply({ event: { type: 'start', mode: 'dry' } });
    expect(run.apply({ event: { type: 'released' } }).phase).toBe('starting');
    expect(refused).toEqual([
      'run status report refused: the run cannot take "released" now: not-ended (the run is starting)',
    ]);
  });
});
