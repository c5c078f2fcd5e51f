/**
 * The one state estimator (mocap/state-estimator.ts): frames in, the table's state out, with the
 * time it is judged at and each body's staleness; the same poses as the scene binding frame by
 * frame (its freeze test included), the same state for the planner and the live view.
 */
import { describe, expect, it } from 'vitest';
import { identityCalibration, type Calibration } from '../../src-main/calibration/mocap-table';
import { toPlanarPoses, type MocapSnapshot, type PlanarPoses } from '../../src-main/mocap/scene-binding';
import { StateEstimator, tableEstimate } from '../../src-main/mocap/state-estimator';
import { StateLayout } from '#contract/state';

const binding = { pusher: 'Pusher', sliders: [{ id: 'box', rigidBody: 'Box' }] };
const layout = new StateLayout(['box']);

function snapshot(frameNumber: number, receivedAt: number, names = ['Pusher', 'Box']): MocapSnapshot {
  const jitter = 2e-5 * Math.sin(frameNumber);
  return {
    frameNumber,
    receivedAt,
    rigidBodies: names.map((name, i) => ({
      id: i + 1,
      name,
      position: [0.1 * i + jitter, 0.05, 0.02],
      orientation: [0, 0, Math.sin(0.15), Math.cos(0.15)],
      meanError: 0,
      trackingValid: true,
    })),
  };
}

function estimator(clock: () => number, calibration: () => Calibration = () => identityCalibration('z')) {
  return new StateEstimator({ binding, layout, calibration, clock });
}

describe('the state estimator', () => {
  it('gives the poses the scene binding gives, frame by frame, and the state they make', () => {
    let now = 0;
    const e = estimator(() => now);
    let previous: PlanarPoses | undefined;
    for (const [n, t] of [
      [1, 0],
      [2, 0.01],
      [2, 0.02],
      [3, 0.03],
    ] as const) {
      now = t;
      const poses = e.frame(snapshot(n, t));
      previous = toPlanarPoses(snapshot(n, t), binding, identityCalibration('z'), { previous });
      expect(poses).toEqual(previous);
    }
    const at = e.estimate();
    expect(at.at).toBe(0.03);
    expect(at.missing).toBeNull();
    const x = Array.from(at.state!);
    const box = previous!.sliders[0]!.pose!;
    const expected = layout.create();
    layout.setPusher(expected, previous!.pusher.pose!.x, previous!.pusher.pose!.y);
    layout.setSlider(expected, 0, box);
    expect(x).toEqual(Array.from(expected));
    expect(box.theta).toBeCloseTo(0.3, 12);
  });

  it('judges staleness when asked: poses age on when frames stop', () => {
    let now = 1;
    const e = estimator(() => now);
    expect(e.estimate()).toMatchObject({ at: 1, poses: undefined, state: null });
    e.frame(snapshot(1, 1));
    expect(e.estimate().poses!.ok).toBe(true);
    now = 1.25;
    const late = e.estimate();
    expect(late.at).toBe(1.25);
    expect(late.poses!.ok).toBe(false);
    expect(late.poses!.sliders[0]).toMatchObject({ status: 'stale', age: 0.25 });
    // Stale poses still give the state: stopping on them is the supervisor's job.
    expect(late.state).not.toBeNull();
  });

  it('reads the calibration at each frame', () => {
    let calibration = identityCalibration('z');
    const e = estimator(
      () => 0,
      () => calibration,
    );
    e.frame(snapshot(1, 0));
    calibration = { ...calibration, translation: [1, 0, 0] };
    e.frame(snapshot(2, 0));
    expect(e.poses()!.pusher.pose!.x).toBeCloseTo(1, 3);
  });

  it('places a pusher without markers where the robot holds it, and says what is unknown', () => {
    const e = new StateEstimator({
      binding: { sliders: binding.sliders },
      layout,
      calibration: () => identityCalibration('z'),
      clock: () => 0,
    });
    e.frame(snapshot(1, 0));
    expect(e.estimate().missing).toBe(
      'the pusher position is known neither from motion capture nor from the robot',
    );
    const held = e.estimate(() => ({ x: -0.2, y: 0.1 }));
    expect(Array.from(held.state!).slice(0, 2)).toEqual([-0.2, 0.1]);

    const unseen = estimator(() => 0);
    unseen.frame(snapshot(1, 0, ['Pusher']));
    expect(unseen.estimate().missing).toBe('no pose for box (Box)');
    expect(tableEstimate(layout, undefined, 3).missing).toBe(
      'no motion-capture frame to observe the table from',
    );
  });
});
