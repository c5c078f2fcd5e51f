/**
 * The judgement behind "the stream may be spoofed", by fault injection: frames numbered far ahead
 * while the stream goes on, one number with two contents, a reordered datagram, a jump after a
 * real pause; the estimator keeping its poses through them and saying why; the supervisor and
 * pre-flight acting on it; a body moving faster than anything on the table can while running.
 */
import { describe, expect, it } from 'vitest';
import { FrameOrder } from '../../src-main/mocap/frame-order';
import { SUSPECT_HOLD } from '../../src-main/mocap/spoof-signs';
import { preflight } from '../../src-main/safety/preflight';
import { describeStop } from '../../src-main/safety/stop-reasons';
import { BODY_SPEED_FACTOR, RESTART_CONFIRM } from '#contract/safety-limits';
import { liveFrame, liveFrameEstimator, mocapOnlySupervisor } from '../helpers/mocap-supervision';
import { referenceScene } from '../helpers/scenes';

const AHEAD = 2 ** 20;
const PERIOD = 1 / 120;

/** A supervisor holding the pusher where liveFrame streams it, fed nothing but motion capture. */
const supervisor = (now: () => number, maxSpeed = 0.1) =>
  mocapOnlySupervisor({ now, pusher: { x: -0.3, y: 0 }, table: { x: 1, y: 0.8 }, maxSpeed });

describe('frame order against a second sender', () => {
  it('never takes a numbering 2^20 ahead while the stream goes on, and says two numberings are live', () => {
    const order = new FrameOrder();
    const verdicts: string[] = [];
    const signs: string[] = [];
    for (let k = 0; k < 240; k++) {
      const at = k * PERIOD;
      verdicts.push(order.judge(1000 + k, at));
      if (order.sign) signs.push(order.sign.detail);
      // Each real frame copied 2^20 ahead, a moment later.
      verdicts.push(`spoof ${order.judge(1000 + k + AHEAD, at + 0.001)}`);
    }
    expect(verdicts.filter((v) => v === 'new')).toHaveLength(240);
    expect(verdicts.filter((v) => v === 'spoof unconfirmed')).toHaveLength(240);
    expect(order.dropped).toBe(0);
    expect(order.unconfirmed).toBe(240);
    // Every real frame after a spoofed one finds the other numbering live.
    expect(signs).toHaveLength(239);
    expect(signs[0]).toBe(
      `frame ${1000 + AHEAD} came ${AHEAD} frames ahead of frame 1000, and the stream went on with frame 1001`,
    );
  });

  it('takes a jump ahead after a real pause once the new numbering has kept on for RESTART_CONFIRM', () => {
    const order = new FrameOrder();
    for (let k = 0; k < 10; k++) expect(order.judge(k, k * PERIOD)).toBe('new');
    // Motive paused 2 s: its camera clock counted on.
    const verdicts: string[] = [];
    for (let k = 0; k < 100; k++) verdicts.push(order.judge(5000 + k, 2 + k * PERIOD));
    const first = verdicts.indexOf('jump');
    expect(first * PERIOD).toBeGreaterThanOrEqual(RESTART_CONFIRM - 1e-9);
    expect((first - 1) * PERIOD).toBeLessThan(RESTART_CONFIRM);
    expect(verdicts.slice(0, first).every((v) => v === 'unconfirmed')).toBe(true);
    expect(verdicts.slice(first + 1).every((v) => v === 'new')).toBe(true);
    expect(order.signs).toBe(0);
  });

  it('takes lost frames as a gap, and frames that arrive bunched, without a sign', () => {
    const order = new FrameOrder();
    expect(order.judge(1, 0)).toBe('new');
    expect(order.judge(9, 0.07)).toBe('new');
    // A backlog of 10 frames read at once.
    for (let k = 10; k < 20; k++) expect(order.judge(k, 0.2)).toBe('new');
    expect(order.signs).toBe(0);
  });

  it('tells one number with two contents (two senders) from a repeated one (a frozen Motive)', () => {
    const order = new FrameOrder();
    order.judge(7, 0, 'a');
    expect(order.judge(7, 0.008, 'a')).toBe('repeated');
    expect(order.sign).toBeUndefined();
    expect(order.judge(7, 0.016, 'b')).toBe('repeated');
    expect(order.sign).toEqual({
      kind: 'duplicate-number',
      detail: 'frame 7 came twice with different contents',
    });
  });

  it('judges a datagram that came after a newer one, with the stream going on, as two numberings', () => {
    const order = new FrameOrder();
    order.judge(10, 0);
    order.judge(12, 0.016);
    expect(order.judge(11, 0.017)).toBe('old');
    expect(order.judge(13, 0.025)).toBe('new');
    expect(order.sign?.detail).toBe(
      'frame 11 came after frame 12, and the stream went on with frame 13 (out of order)',
    );
  });
});

describe('the state estimator under a second sender', () => {
  it('moves no pose, says the stream may be spoofed for SUSPECT_HOLD, and pre-flight stays red meanwhile', () => {
    const est = liveFrameEstimator();
    let last = est.frame(liveFrame(100, 0));
    let k = 1;
    for (; k < 120; k++) {
      last = est.frame(liveFrame(100 + k, k * PERIOD));
      // The copy: 2^20 ahead, the box 0.44 m on.
      const spoofed = est.frame(liveFrame(100 + k + AHEAD, k * PERIOD + 0.001, -0.2 + 0.44));
      expect(spoofed.sliders[0]!.pose!.x).toBeCloseTo(-0.2, 3);
    }
    expect(last.sliders[0]!.pose!.x).toBeCloseTo(-0.2, 3);
    expect(last.ok).toBe(true);
    expect(last.suspect).toMatchObject({ kind: 'two-numberings' });
    expect(est.frameCounts).toEqual({ dropped: 0, unconfirmed: 119, repeated: 0 });
    const inputs = {
      robot: undefined,
      robotLinkUp: false,
      gripper: undefined,
      calibration: undefined,
      scene: referenceScene('isrr-obstacle'),
      maxCalibrationResidual: 0.003,
    };
    const red = preflight({ ...inputs, mocap: last }).checks.find((c) => c.id === 'mocap')!;
    expect(red.ok).toBe(false);
    expect(red.reason).toMatch(/^may be spoofed: frame \d+ came 1048576 frames ahead of frame \d+/);
    // The sender stops: clean frames for SUSPECT_HOLD, and the stream is trusted again.
    const quietFrom = k * PERIOD;
    for (; k * PERIOD - quietFrom <= SUSPECT_HOLD + PERIOD; k++)
      last = est.frame(liveFrame(100 + k, k * PERIOD));
    expect(last.suspect).toBeUndefined();
    expect(preflight({ ...inputs, mocap: last }).checks.find((c) => c.id === 'mocap')!.ok).toBe(true);
  });

  it("carries the client's sign on the poses", () => {
    const est = liveFrameEstimator();
    est.frame(liveFrame(1, 0));
    const sign = {
      kind: 'wrong-port' as const,
      detail: 'a packet from 127.0.0.1:4242 on the command socket',
      at: 0.005,
    };
    expect(est.frame({ ...liveFrame(2, PERIOD), suspect: sign }).suspect).toEqual(sign);
    expect(est.poses(1)?.suspect).toEqual(sign);
    expect(est.poses(0.005 + SUSPECT_HOLD + 0.01)?.suspect).toBeUndefined();
  });
});

describe('the supervisor on a suspect stream', () => {
  it('stops a running arm on the first sign, naming it, and arms no run while it holds', () => {
    const est = liveFrameEstimator();
    let now = 0;
    const { sup, wire } = supervisor(() => now);
    sup.updateMocap(est.frame(liveFrame(1, 0)));
    expect(sup.arm({ ok: true, checks: [] })).toBe(true);
    sup.startRun();
    for (let k = 2; k < 10; k++) {
      now = k * PERIOD;
      sup.updateMocap(est.frame(liveFrame(k, now)));
    }
    expect(sup.state).toBe('running');
    now = 10 * PERIOD;
    sup.updateMocap(est.frame(liveFrame(10 + AHEAD, now, 0.24)));
    expect(sup.state).toBe('running');
    now = 11 * PERIOD;
    sup.updateMocap(est.frame(liveFrame(10, now)));
    expect(sup.state).toBe('stopped');
    expect(sup.stopReason).toMatchObject({ code: 'mocap-suspect', sign: 'two-numberings' });
    expect(describeStop(sup.stopReason!)).toMatch(
      /^Motion capture may be spoofed: frame \d+ came \d+ frames ahead of frame 9, and the stream went on with frame 10$/,
    );
    expect(wire).toEqual(['stop']);
    sup.reset();
    const decisions: unknown[] = [];
    sup.on('decision', (d) => decisions.push(d));
    expect(sup.arm({ ok: true, checks: [] })).toBe(false);
    expect(decisions).toEqual([
      expect.objectContaining({
        kind: 'arm-refused',
        failed: [expect.stringMatching(/^Motion capture: may be spoofed: /)],
      }),
    ]);
  });

  it('stops when a body moves faster than anything on the table can, and not at the fastest real push', () => {
    const maxSpeed = 0.1;
    let now = 0;
    const run = (step: (k: number) => number) => {
      const est = liveFrameEstimator();
      const { sup } = supervisor(() => now, maxSpeed);
      sup.updateMocap(est.frame(liveFrame(0, 0)));
      sup.arm({ ok: true, checks: [] });
      sup.startRun();
      for (let k = 1; k < 60 && sup.state === 'running'; k++) {
        now = k * PERIOD;
        sup.updateMocap(est.frame(liveFrame(k, now, -0.2 + step(k))));
      }
      return sup;
    };
    // Pushed at twice the tool's limit (the fastest an object can leave a strike): runs on.
    expect(run((k) => BODY_SPEED_FACTOR * maxSpeed * k * PERIOD).state).toBe('running');
    // The box 0.44 m on in one frame: stopped, naming it.
    const sup = run((k) => (k >= 30 ? 0.44 : 0));
    expect(sup.stopReason).toMatchObject({ code: 'mocap-suspect', sign: 'pose-jump' });
    expect(describeStop(sup.stopReason!)).toBe(
      'Motion capture may be spoofed: Box moved 440 mm in 8 ms, faster than anything on the table can (0.20 m/s)',
    );
  });
});
