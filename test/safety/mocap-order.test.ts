/**
 * Motion-capture frames must come in order: older frames are dropped and counted, the 32-bit
 * counter's wrap-around is a step forward, a Motive restart is taken only once its new numbering
 * has kept increasing for a while, and a replayed sequence (100, 101, 100, 101, ...) arriving at
 * the normal rate ages into a staleness stop.
 */
import { describe, expect, it } from 'vitest';
import { RESTART_CONFIRM } from '#contract/safety-limits';
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import { layoutForScene } from '#contract/state';
import { FrameOrder } from '../../src-main/mocap/frame-order';
import type { MocapSnapshot } from '../../src-main/mocap/scene-binding';
import { StateEstimator } from '../../src-main/mocap/state-estimator';
import { Supervisor } from '../../src-main/safety/supervisor';
import { workspaceFor } from '../../src-main/safety/workspace';
import { referenceScene } from '../helpers/scenes';

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/**
 * A frame whose poses jitter from frame to frame as a live camera's do (so only its number can make
 * it old); a frame sent again (a replay) carries what it carried the first time.
 */
function snapshot(frameNumber: number, receivedAt: number): MocapSnapshot {
  const jitter = 2e-5 * Math.sin(frameNumber * 977);
  const rb = (id: number, name: string, x: number) => ({
    id,
    name,
    position: [x + jitter, 0, 0.02] as [number, number, number],
    orientation: [0, 0, 0, 1] as [number, number, number, number],
    meanError: 0,
    trackingValid: true,
  });
  return { frameNumber, receivedAt, rigidBodies: [rb(1, 'Pusher', -0.3), rb(2, 'Box', -0.2)] };
}

function estimator(): StateEstimator {
  return new StateEstimator({
    binding: { pusher: 'Pusher', sliders: [{ id: 'object', rigidBody: 'Box' }] },
    layout: layoutForScene(referenceScene('isrr-obstacle')),
    calibration: () => identityCalibration('z'),
  });
}

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
    const est = estimator();
    let last = est.frame(snapshot(100, 0));
    for (let k = 1; k <= 18; k++) last = est.frame(snapshot(k % 2 === 0 ? 100 : 101, k / 120));
    // 150 ms of 100, 101, 100, ...: only frame 101, at 8.3 ms, ever brought anything new.
    expect(last.ok).toBe(false);
    expect(last.pusher.poseTime).toBeCloseTo(1 / 120, 12);
    expect(est.frameCounts.dropped).toBe(9);
  });

  it('stops a running supervisor for staleness about 100 ms after the last new frame', () => {
    const est = estimator();
    let now = 0;
    const wire: string[] = [];
    const sup = new Supervisor({
      robot: { latest: undefined, sendTwist: () => wire.push('twist'), stop: () => wire.push('stop') },
      frame: { pusherInTable: () => ({ x: -0.3, y: 0, z: 0.07 }), tableToBase: (vx, vy) => [vx, vy] },
      workspace: workspaceFor({ size: { x: 1, y: 0.8 } }, 0.05, [0.03, 0.15]),
      maxSpeed: 0.1,
      acceleration: 0.5,
      robotStateMaxAge: Infinity,
      now: () => now,
    });
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    for (let k = 0; sup.state === 'running' && k < 120; k++) {
      now = k / 120;
      sup.updateMocap(est.frame(snapshot(k < 2 ? 100 + k : k % 2 === 0 ? 100 : 101, now)));
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
    const est = estimator();
    let now = 0;
    const sup = new Supervisor({
      robot: { latest: undefined, sendTwist: () => 0, stop: () => 0 },
      frame: { pusherInTable: () => ({ x: -0.3, y: 0, z: 0.07 }), tableToBase: (vx, vy) => [vx, vy] },
      workspace: workspaceFor({ size: { x: 1, y: 0.8 } }, 0.05, [0.03, 0.15]),
      maxSpeed: 0.1,
      acceleration: 0.5,
      robotStateMaxAge: Infinity,
      now: () => now,
    });
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    sup.updateMocap(est.frame(snapshot(101, 0)));
    // Old frames for 90 ms, then silence: only the watchdog tick can stop it.
    for (let k = 1; k <= 11; k++) {
      now = k / 120;
      sup.updateMocap(est.frame(snapshot(100, now)));
    }
    expect(sup.state).toBe('running');
    now = 0.101;
    sup.tick();
    expect(sup.stopReason).toMatchObject({ code: 'mocap-stale' });
  });
});
