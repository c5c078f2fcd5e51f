/**
 * A frozen Motive sends the same frame (number and poses) again and again, or new frame numbers
 * with bit-identical poses: the poses must age from their first arrival, and the supervisor must
 * stop naming the freeze. Live poses always jitter, so a jittering body at rest stays fresh.
 */
import { describe, expect, it } from 'vitest';
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import { toPlanarPoses, type MocapSnapshot, type PlanarPoses } from '../../src-main/mocap/scene-binding';
import { describeStop } from '../../src-main/safety/stop-reasons';
import type { Supervisor } from '../../src-main/safety/supervisor';
import { mocapOnlySupervisor, tableFrame } from '../helpers/mocap-supervision';

const binding = { pusher: 'Pusher', sliders: [{ id: 'box', rigidBody: 'Box' }] };
const calibration = identityCalibration('z');

/**
 * A frame with the pusher at x = 0 and the box at x = 0.1, both shifted by `jitter` (m): by default
 * a live camera's, some hundredths of a millimetre that differ from one frame number to the next.
 */
function snapshot(
  frameNumber: number,
  receivedAt: number,
  jitter = 2e-5 * Math.sin(frameNumber),
): MocapSnapshot {
  return tableFrame(frameNumber, receivedAt, { pusherX: 0, boxX: 0.1, jitter });
}

/** Feeds frames (number, arrival s) through the binding as LabLink does, `previous` carried. */
function feed(frames: [number, number][]): PlanarPoses[] {
  const out: PlanarPoses[] = [];
  for (const [n, t] of frames)
    out.push(toPlanarPoses(snapshot(n, t), binding, calibration, { previous: out.at(-1) }));
  return out;
}

/**
 * A running supervisor fed frame k at k / 120 s through the binding (as LabLink does), watchdog
 * ticked after each, until it stops or 0.5 s pass. `wire` records what it sent the robot.
 */
function superviseAt120Hz(frame: (k: number, t: number) => MocapSnapshot): {
  sup: Supervisor;
  wire: string[];
} {
  let now = 0;
  const { sup, wire } = mocapOnlySupervisor({
    now: () => now,
    pusher: { x: 0, y: 0 },
    table: { x: 1, y: 1 },
  });
  sup.arm({ ok: true, checks: [] });
  sup.startRun();
  let previous: PlanarPoses | undefined;
  for (let k = 0; sup.state === 'running' && k < 60; k++) {
    now = k / 120;
    previous = toPlanarPoses(frame(k, now), binding, calibration, { previous });
    sup.updateMocap(previous);
    sup.tick();
  }
  return { sup, wire };
}

describe('frozen motion capture', () => {
  it('ages repeated frames from the first arrival of their number', () => {
    // 120 Hz: frame 7 arrives at 0 s and is then repeated for 150 ms.
    const frames: [number, number][] = [[6, -1 / 120]];
    for (let k = 0; k <= 18; k++) frames.push([7, k / 120]);
    const poses = feed(frames);
    const at = (s: number): PlanarPoses => poses[frames.findIndex(([, t]) => t >= s - 1e-12)]!;
    expect(at(0.09).ok).toBe(true);
    expect(at(0.11).ok).toBe(false);
    expect(at(0.11).pusher.status).toBe('stale');
    expect(at(0.11).sliders[0]!.poseTime).toBe(0);
    // The stream moves on: fresh again at once.
    const next = toPlanarPoses(snapshot(8, 0.16), binding, calibration, { previous: poses.at(-1) });
    expect(next.ok).toBe(true);
  });

  it('ages bit-identical poses under advancing frame numbers, and keeps jittering poses fresh', () => {
    let frozen: PlanarPoses | undefined;
    let live: PlanarPoses | undefined;
    const frozenSeries: PlanarPoses[] = [];
    for (let k = 0; k <= 18; k++) {
      const t = k / 120;
      frozen = toPlanarPoses(snapshot(100 + k, t, 0), binding, calibration, { previous: frozen });
      frozenSeries.push(frozen);
      live = toPlanarPoses(snapshot(100 + k, t), binding, calibration, { previous: live });
    }
    expect(frozenSeries[0]!.pusher.repeated).toBeNull();
    expect(frozenSeries[1]!.pusher.repeated).toBe('pose');
    expect(frozenSeries[13]!.ok).toBe(false);
    expect(frozenSeries[13]!.sliders[0]!).toMatchObject({ status: 'stale', repeated: 'pose', poseTime: 0 });
    expect(live!.ok).toBe(true);
    expect(live!.pusher).toMatchObject({ status: 'ok', repeated: null, poseTime: 18 / 120 });
  });

  it('a restarted Motive (frame numbers start again) is not frozen', () => {
    const poses = feed([
      [90_000, 0],
      [1, 0.2],
      [2, 0.21],
    ]);
    expect(poses.at(-1)!.ok).toBe(true);
  });

  it('the supervisor stops on a frame that repeats past the limit, and says it is frozen', () => {
    const { sup, wire } = superviseAt120Hz((k, t) => snapshot(k === 0 ? 41 : 42, t));
    expect(sup.stopReason).toMatchObject({ code: 'mocap-frozen', repeated: 'frame', frameNumber: 42 });
    expect(describeStop(sup.stopReason!)).toMatch(/^Motion capture frozen: frame 42 repeated for 10\d ms$/);
    // First repeat at 8.3 ms; stopped at the first copy past the 100 ms limit.
    expect(sup.stoppedAt! - 1 / 120).toBeLessThan(0.1 + 1 / 120 + 0.001);
    expect(wire.at(-1)).toBe('stop');
  });

  it('the supervisor stops on poses that repeat past the limit under new frame numbers, naming the body', () => {
    const { sup, wire } = superviseAt120Hz((k, t) => snapshot(500 + k, t, 0));
    expect(sup.stopReason).toMatchObject({ code: 'mocap-frozen', repeated: 'pose', body: 'Pusher' });
    expect(describeStop(sup.stopReason!)).toMatch(
      /^Motion capture frozen: Pusher pose repeated unchanged for 10\d ms \(frame 51\d\)$/,
    );
    // The first frame's pose is repeated from 8.3 ms on; stopped past the 100 ms limit.
    expect(sup.stoppedAt!).toBeLessThan(0.1 + 1 / 120 + 0.001);
    expect(wire.at(-1)).toBe('stop');
  });
});
