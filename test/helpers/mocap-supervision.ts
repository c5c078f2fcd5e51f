/**
 * Motion capture judged as a run judges it, without a lab: live frames of a still table, the state
 * estimator on an identity (Z-up) calibration, and a supervisor on a still robot fed nothing but
 * motion capture.
 */
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import { layoutForScene, StateLayout } from '#contract/state';
import type { MocapBinding, MocapSnapshot } from '../../src-main/mocap/scene-binding';
import { StateEstimator } from '../../src-main/mocap/state-estimator';
import { Supervisor } from '../../src-main/safety/supervisor';
import { workspaceFor } from '../../src-main/safety/workspace';
import { referenceScene } from './scenes';

/**
 * The state estimator of `binding` on Z-up motion capture whose axes are the table's; its state
 * layout `layout` (default: the binding's sliders and the pusher).
 */
export function identityEstimator(
  binding: MocapBinding,
  layout = new StateLayout(binding.sliders.map((s) => s.id)),
): StateEstimator {
  return new StateEstimator({ binding, layout, calibration: () => identityCalibration('z') });
}

/**
 * A frame of a still table: the pusher (rigid body 1) at x = `pusherX` and the box (2) at `boxX`
 * (m), 2 cm up, both shifted by `jitter` (m).
 */
export function tableFrame(
  frameNumber: number,
  receivedAt: number,
  o: { pusherX: number; boxX: number; jitter: number },
): MocapSnapshot {
  const rb = (id: number, name: string, x: number) => ({
    id,
    name,
    position: [x + o.jitter, 0, 0.02] as [number, number, number],
    orientation: [0, 0, 0, 1] as [number, number, number, number],
    meanError: 0,
    trackingValid: true,
  });
  return { frameNumber, receivedAt, rigidBodies: [rb(1, 'Pusher', o.pusherX), rb(2, 'Box', o.boxX)] };
}

/**
 * A tableFrame as a live camera streams it: the pusher at x = -0.3 m, the box at `boxX`, their
 * poses jittering from one frame number to the next (so only its number can make a frame old); a
 * frame sent again (a replay) carries what it carried the first time.
 */
export function liveFrame(frameNumber: number, receivedAt: number, boxX = -0.2): MocapSnapshot {
  return tableFrame(frameNumber, receivedAt, {
    pusherX: -0.3,
    boxX,
    jitter: 2e-5 * Math.sin(frameNumber * 977),
  });
}

/** The estimator of liveFrame's bodies: isrr-obstacle's scene, the box its object. */
export function liveFrameEstimator(): StateEstimator {
  return identityEstimator(
    { pusher: 'Pusher', sliders: [{ id: 'object', rigidBody: 'Box' }] },
    layoutForScene(referenceScene('isrr-obstacle')),
  );
}

/**
 * A supervisor on a still robot (no robot state, and none awaited) fed nothing but motion capture:
 * the pusher held at `pusher` (table frame, m, 7 cm up), a `table` (m) with a 5 cm margin and
 * pusher heights of 3 to 15 cm, at most `maxSpeed` (default 0.1 m/s) at 0.5 m/s^2, on the clock
 * `now`. `wire` records what it sent the robot.
 */
export function mocapOnlySupervisor(o: {
  now: () => number;
  pusher: { x: number; y: number };
  table: { x: number; y: number };
  maxSpeed?: number;
}): { sup: Supervisor; wire: string[] } {
  const wire: string[] = [];
  const sup = new Supervisor({
    robot: { latest: undefined, sendTwist: () => wire.push('twist'), stop: () => wire.push('stop') },
    frame: { pusherInTable: () => ({ ...o.pusher, z: 0.07 }), tableToBase: (vx, vy) => [vx, vy] },
    workspace: workspaceFor({ size: o.table }, 0.05, [0.03, 0.15]),
    maxSpeed: o.maxSpeed ?? 0.1,
    acceleration: 0.5,
    robotStateMaxAge: Infinity,
    now: o.now,
  });
  return { sup, wire };
}
