import { describe, expect, it } from 'vitest';
import { identityCalibration, fitCalibration2d } from '../../src-main/calibration/mocap-table';
import { orientationFromZUp, pointFromZUp } from '../../src-main/calibration/axes';
import {
  ageTo,
  bindingFromScene,
  toPlanarPoses,
  type MocapSnapshot,
  type NamedRigidBody,
} from '../../src-main/mocap/scene-binding';
import { yawQuat } from '../../src-main/common/rotation';

const binding = bindingFromScene({
  pusher: { radius: 0.0145, height: 0.11, position: { x: 0, y: 0 }, rigidBody: 'Pusher' },
  sliders: [
    {
      id: 'box',
      shape: { kind: 'cylinder', radius: 0.05, height: 0.02 },
      mass: 0.5,
      friction: 0.2,
      pose: { x: 0, y: 0, theta: 0 },
      rigidBody: 'Box',
    },
    {
      id: 'free',
      shape: { kind: 'cylinder', radius: 0.05, height: 0.02 },
      mass: 0.5,
      friction: 0.2,
      pose: { x: 0, y: 0, theta: 0 },
    },
  ],
});

function body(
  id: number,
  name: string,
  x: number,
  y: number,
  yaw: number,
  up: 'y' | 'z',
  valid = true,
): NamedRigidBody {
  return {
    id,
    name,
    position: pointFromZUp([x, y, 0.02], up),
    orientation: orientationFromZUp(yawQuat(yaw), up),
    meanError: 0.0002,
    trackingValid: valid,
  };
}

function snap(frameNumber: number, receivedAt: number, rigidBodies: NamedRigidBody[]): MocapSnapshot {
  return { frameNumber, receivedAt, rigidBodies };
}

describe('toPlanarPoses', () => {
  it.each(['y', 'z'] as const)('maps bound rigid bodies to planar table poses (%s-up)', (up) => {
    const s = snap(1, 10, [body(1, 'Pusher', 0.1, -0.05, 0, up), body(2, 'Box', 0.3, 0.2, 1.2, up)]);
    const p = toPlanarPoses(s, binding, identityCalibration(up));
    expect(p.ok).toBe(true);
    expect(p.pusher.status).toBe('ok');
    expect(p.pusher.pose!.x).toBeCloseTo(0.1, 6);
    expect(p.pusher.pose!.y).toBeCloseTo(-0.05, 6);
    expect(p.sliders[0]!.pose!.theta).toBeCloseTo(1.2, 6);
    expect(p.sliders[0]!.z).toBeCloseTo(0.02, 6);
    expect(p.sliders[1]!.status).toBe('unbound');
  });

  it('applies the calibration (table frame rotated and shifted from the mocap frame)', () => {
    // Table = mocap rotated by +90 deg about z and shifted by (1, 0).
    const pairs = [
      { mocap: pointFromZUp([0, 0, 0], 'y'), table: [1, 0] as [number, number] },
      { mocap: pointFromZUp([1, 0, 0], 'y'), table: [1, 1] as [number, number] },
      { mocap: pointFromZUp([0, 1, 0], 'y'), table: [0, 0] as [number, number] },
    ];
    const c = fitCalibration2d(pairs, 'y', 'rot');
    const p = toPlanarPoses(
      snap(1, 0, [body(2, 'Box', 0.5, 0, 0.1, 'y'), body(1, 'Pusher', 0, 0, 0, 'y')]),
      binding,
      c,
    );
    expect(p.sliders[0]!.pose!.x).toBeCloseTo(1, 6);
    expect(p.sliders[0]!.pose!.y).toBeCloseTo(0.5, 6);
    expect(p.sliders[0]!.pose!.theta).toBeCloseTo(0.1 + Math.PI / 2, 6);
  });

  it('reports an untracked body as untracked and keeps its last pose only as a labelled hold', () => {
    const cal = identityCalibration('z');
    const first = toPlanarPoses(
      snap(1, 0, [body(1, 'Pusher', 0, 0, 0, 'z'), body(2, 'Box', 0.3, 0.2, 0, 'z')]),
      binding,
      cal,
    );
    const second = toPlanarPoses(
      snap(2, 0.01, [body(1, 'Pusher', 0, 0, 0, 'z'), body(2, 'Box', 9, 9, 0, 'z', false)]),
      binding,
      cal,
      { previous: first },
    );
    expect(second.ok).toBe(false);
    expect(second.sliders[0]!.status).toBe('untracked');
    expect(second.sliders[0]!.tracked).toBe(false);
    expect(second.sliders[0]!.pose!.x).toBeCloseTo(0.3, 6);
    expect(second.sliders[0]!.age).toBeCloseTo(0.01, 9);
  });

  it('reports a body absent from the frame as missing', () => {
    const p = toPlanarPoses(snap(1, 0, [body(1, 'Pusher', 0, 0, 0, 'z')]), binding, identityCalibration('z'));
    expect(p.sliders[0]!.status).toBe('missing');
    expect(p.sliders[0]!.pose).toBeNull();
    expect(p.ok).toBe(false);
  });

  it('reports a pose older than the limit as stale, never as ok', () => {
    const cal = identityCalibration('z');
    const p = toPlanarPoses(
      snap(1, 5, [body(1, 'Pusher', 0, 0, 0, 'z'), body(2, 'Box', 0.3, 0.2, 0, 'z')]),
      binding,
      cal,
    );
    expect(p.ok).toBe(true);
    const later = ageTo(p, 5.25, 0.1);
    expect(later.ok).toBe(false);
    expect(later.sliders[0]!.status).toBe('stale');
    expect(later.sliders[0]!.stale).toBe(true);
    expect(later.sliders[0]!.age).toBeCloseTo(0.25, 9);
    const frame = snap(1, 5, [body(2, 'Box', 0, 0, 0, 'z'), body(1, 'Pusher', 0, 0, 0, 'z')]);
    const judgedLate = toPlanarPoses(frame, binding, cal, { now: 6 });
    expect(judgedLate.pusher.status).toBe('stale');
  });
});
