/**
 * A gripper scene's state from motion capture: the grasp centre and its yaw from the gripper's
 * rigid body, the opening from the gripper itself (no camera sees it), and no state at all until
 * both are known.
 */
import { describe, expect, it } from 'vitest';
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import { StateLayout } from '#contract/state';
import { GRIPPER_SLOTS } from '#contract/end-effector/parallel-gripper';
import { bindingFromScene, type MocapSnapshot } from '../../src-main/mocap/scene-binding';
import { StateEstimator } from '../../src-main/mocap/state-estimator';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('wafr-clutter');
const layout = new StateLayout(
  scene.sliders.map((s) => s.id),
  GRIPPER_SLOTS,
);

/** One frame with every body of the scene at yaw `yaw` (Z-up, identity calibration). */
function frame(n: number, yaw: number): MocapSnapshot {
  const names = [scene.gripper!.rigidBody!, ...scene.sliders.map((s) => s.rigidBody!)];
  return {
    frameNumber: n,
    receivedAt: n * 0.01,
    rigidBodies: names.map((name, i) => ({
      id: i + 1,
      name,
      position: [0.1 * i + 1e-5 * n, -0.05, 0.02],
      orientation: [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)],
      meanError: 0,
      trackingValid: true,
    })),
  };
}

describe('the state estimate of a gripper scene', () => {
  it("binds the gripper's rigid body and takes its yaw, and the opening from the gripper", () => {
    expect(bindingFromScene(scene).pusher).toBe('gripper');
    const gripper: { opening?: number } = {};
    const e = new StateEstimator({
      binding: bindingFromScene(scene),
      layout,
      calibration: () => identityCalibration('z'),
      gripperOpening: () => gripper.opening,
      clock: () => 0.01,
    });
    e.frame(frame(1, 0.4));
    // Seen by the cameras, but the gripper has not reported its opening yet: no state.
    expect(e.estimate().missing).toBe(
      "the gripper's opening is unknown: no position read from the gripper yet",
    );
    gripper.opening = 0.09;
    const x = e.estimate().state!;
    expect(layout.gripperPose(x)).toEqual({ x: 1e-5, y: -0.05, yaw: expect.closeTo(0.4, 12), opening: 0.09 });
    expect(layout.sliderPose(x, 0).x).toBeCloseTo(0.1 + 1e-5, 12);
  });

  it('places a gripper without markers where the robot holds it, yaw included', () => {
    const e = new StateEstimator({
      binding: { ...bindingFromScene(scene), pusher: undefined },
      layout,
      calibration: () => identityCalibration('z'),
      gripperOpening: () => 0.14,
      clock: () => 0.01,
    });
    e.frame(frame(1, 0));
    expect(e.estimate(() => ({ x: -0.2, y: 0.01 })).missing).toBe(
      "the gripper's yaw is known neither from motion capture nor from the robot",
    );
    const x = e.estimate(() => ({ x: -0.2, y: 0.01, yaw: -0.3 })).state!;
    expect(layout.gripperPose(x)).toEqual({ x: -0.2, y: 0.01, yaw: -0.3, opening: 0.14 });
  });
});
