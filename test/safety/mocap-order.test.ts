/**
 * Motion-capture frames must come in order: older frames are dropped and counted, the 32-bit
 * counter's wrap-around is a step forward, a Motive restart is taken only once its new numbering
 * has kept increasing for a while, and a replayed sequence (100, 101, 100, 101, ...) arriving at
 * the normal rate ages into a staleness stop.
 */
import { describe, expect, it } from 'vitest';
import { RESTART_CONFIRM } from '#contract/safety-limits';
import { FrameOrder } from '../../src-main/mocap/frame-order';
import { liveFrame, liveFrameEstimator, mocapOnlySupervisor } from '../helpers/mocap-supervision';

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);
/** The table the supervisor guards (m). */
const TABLE = { x: 1, y: 0.8 };

describe('frame order', () => {
  it('drops and counts frames older than the newest, counts repeats', () => {
    const order = new FrameOrder();
    expect([100, 101, 100, 101, 102, 99].map((n, i) => order.judge(n, i / 120))).toEqual([
      'new',
      'new',
      'old',
      'repeated',
      'new',
      'old',
    ]);
    expect(order.dropped).toBe(2);
    expect(order.repeated).toBe(1);
  });

  it('takes the 32-bit counter wrapping round as a step forward', () => {
    const order = new FrameOrder();
    expect(order.judge(INT32_MAX - 1, 0)).toBe('new');
    expect(order.judge(INT32_MAX, 0.008)).toBe('new');
    expect(order.judge(INT32_MIN, 0.017)).toBe('new');
    expect(order.judge(INT32_MIN + 1, 0.025)).toBe('new');
    expect(order.judge(INT32_MAX, 0.033)).toBe('old');
  });

  it('takes a restarted numbering only once it has kept increasing for RESTART_CONFIRM', () => {
    const order = new FrameOrder();
    expect(order.judge(90_000, 0)).toBe('new');
    const verdicts: string[] = [];
    for (let k = 1; k <= 70; k++) verdicts.push(order.judge(k, k / 120));
    const first = verdicts.indexOf('restart');
    // Frame 1 arrived at 1/120 s; the restart is confirmed on the first frame RESTART_CONFIRM later.
    const k = first + 1;
    expect((k - 1) / 120).toBeGreaterThanOrEqual(RESTART_CONFIRM - 1e-9);
    expect((k - 2) / 120).toBeLessThanOrEqual(RESTART_CONFIRM);
    expect(verdicts.slice(0, first).every((v) => v === 'old')).toBe(true);
    expect(verdicts.slice(first + 1).every((v) => v === 'new')).toBe(true);
  });

  it('never takes a replay of a few old frames for a restart', () => {
    const order = new FrameOrder();
    order.judge(101, 0);
    const verdicts: string[] = [];
    for (let k = 1; k < 240; k++) verdicts.push(order.judge(k % 2 === 0 ? 101 : 100, k / 120));
    expect(verdicts.every((v) => v === 'old' || v === 'repeated')).toBe(true);
  });
});

describe('a replayed motion-capture sequence', () => {
  it('goes stale in the state estimator however fast it arrives', () => {
    const est = liveFrameEstimator();
    let last = est.frame(liveFrame(100, 0));
    for (let k = 1; k <= 18; k++) last = est.frame(liveFrame(k % 2 === 0 ? 100 : 101, k / 120));
    // 150 ms of 100, 101, 100, ...: only frame 101, at 8.3 ms, ever brought anything new.
    expect(last.ok).toBe(false);
    expect(last.pusher.poseTime).toBeCloseTo(1 / 120, 12);
    expect(est.frameCounts.dropped).toBe(9);
  });

  it('stops a running supervisor for staleness about 100 ms after the last new frame', () => {
    const est = liveFrameEstimator();
    let now = 0;
    const { sup, wire } = mocapOnlySupervisor({ now: () => now, pusher: { x: -0.3, y: 0 }, table: TABLE });
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    for (let k = 0; sup.state === 'running' && k < 120; k++) {
      now = k / 120;
      sup.updateMocap(est.frame(liveFrame(k < 2 ? 100 + k : k % 2 === 0 ? 100 : 101, now)));
      sup.tick();
    }
    expect(sup.state).toBe('stopped');
    expect(sup.stopReason?.code).toMatch(/^mocap-(stale|frozen)$/);
    // The last new frame (101) arrived at 1/120 s; stopped on the first frame past 100 ms after it.
    expect(sup.stoppedAt! - 1 / 120).toBeGreaterThan(0.1);
    expect(sup.stoppedAt! - 1 / 120).toBeLessThan(0.1 + 1 / 120 + 1e-9);
    expect(wire).toEqual(['stop']);
  });

  it('ages from the last new frame when a replay stops arriving, not from the last dropped frame', () => {
    const est = liveFrameEstimator();
    let now = 0;
    const { sup } = mocapOnlySupervisor({ now: () => now, pusher: { x: -0.3, y: 0 }, table: TABLE });
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    sup.updateMocap(est.frame(liveFrame(101, 0)));
    // Old frames for 90 ms, then silence: only the watchdog tick can stop it.
    for (let k = 1; k <= 11; k++) {
      now = k / 120;
      sup.updateMocap(est.frame(liveFrame(100, now)));
    }
    expect(sup.state).toBe('running');
    now = 0.101;
    sup.tick();
    expect(sup.stopReason).toMatchObject({ code: 'mocap-stale' });
  });
});
