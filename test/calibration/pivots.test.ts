/**
 * Rigid-body pivots (issue 46, item 1): Motive streams a body at its markers' centroid, its axes
 * as the world's when it was created. The offsets that carry a pivot to its object, measured from
 * a turn of the tool about the pusher's tip and from an object placed on a known pose, and applied
 * in the one place streamed poses become the objects' (scene-binding); a setup holds them within
 * bounds.
 */
import { describe, expect, it } from 'vitest';
import {
  applyPivot,
  MIN_TURN_SPAN,
  pivotFromPlacement,
  pivotFromTurn,
} from '../../src-main/calibration/pivots';
import { identityCalibration, mocapOrientation, mocapPoint } from '../../src-main/calibration/mocap-table';
import { orientationFromZUp, pointFromZUp } from '../../src-main/calibration/axes';
import { calibrationSchema } from '../../src-main/calibration/mocap-table';
import {
  add,
  axisAngle,
  quatMultiply,
  rotate,
  yawOf,
  yawQuat,
  type Quat,
  type Vec3,
} from '../../src-main/common/rotation';
import { toPlanarPoses } from '../../src-main/mocap/scene-binding';
import { truePivotOffsets } from '../../src-main/virtual-lab/pivot-truth';

const deg = Math.PI / 180;

describe('the pusher pivot from a turn about its tip', () => {
  // A pusher body created at yaw 0.35 with its markers 8 cm above the tip and 13 mm off its axis;
  // the tool (and the body) turns about the vertical through the tip, slightly tilted.
  const tip: Vec3 = [0.31, -0.12, 0.004];
  const tilt = axisAngle([1, 0, 0], 0.01);
  const offset: Vec3 = [-0.0127, 0.0028, -0.08];
  const samples = (angles: number[], jitter = 0) =>
    angles.map((a, i) => {
      const orientation: Quat = quatMultiply(yawQuat(a * deg - 0.35), tilt);
      // Pivot = tip - R * offset, with a fixed seeded wobble of the tip.
      const wobble: Vec3 = [jitter * Math.sin(i * 2.1), jitter * Math.cos(i * 1.3), 0];
      return {
        position: add(add(tip, wobble), rotate(orientation, offset).map((v) => -v) as Vec3),
        orientation,
      };
    });

  it('finds the tip and the offset horizontally to a fraction of a millimetre (0, 30, 60, -30 deg)', () => {
    const fit = pivotFromTurn(samples([0, 30, 60, -30], 0.0002));
    expect(Math.hypot(fit.centre[0] - tip[0], fit.centre[1] - tip[1])).toBeLessThan(0.0005);
    // The offset carries each streamed pivot onto the tip (horizontally: the vertical is the table fit's).
    for (const sample of samples([0, 30, 60, -30])) {
      const o = applyPivot(sample.position, sample.orientation, fit.offset).position;
      expect(Math.hypot(o[0] - tip[0], o[1] - tip[1])).toBeLessThan(0.0005);
    }
    expect(Math.hypot(fit.offset.position[0] - offset[0], fit.offset.position[1] - offset[1])).toBeLessThan(
      0.001,
    );
    // The vertical is not seen by a turn: left at the pivot's height.
    expect(Math.abs(fit.offset.position[2])).toBeLessThan(0.002);
    expect(fit.spread).toBeLessThan(0.0006);
    expect(fit.span).toBeCloseTo(90 * deg, 6);
    expect(fit.offset.method).toBe('turn');
  });

  it('refuses too few angles or a turn too small to find the centre', () => {
    expect(() => pivotFromTurn(samples([0, 30]))).toThrow(/at least 3 angles/);
    expect(() => pivotFromTurn(samples([0, 10, 20]))).toThrow(
      new RegExp(`span 20 deg: at least ${Math.round(MIN_TURN_SPAN / deg)} deg`),
    );
  });

  it('reads a pivot reset onto the tip in Motive as zero: motive-reset', () => {
    const reset = [0, 30, 60, -30].map((a) => ({ position: tip, orientation: yawQuat(a * deg) }));
    const fit = pivotFromTurn(reset);
    expect(fit.offset.method).toBe('motive-reset');
  });
});

describe('an object pivot from a placement at a known pose', () => {
  const known = { x: -0.1, y: 0.02, theta: 0.3 };
  // Markers 21 mm off the centre, created at yaw 0.45.
  const truth = truePivotOffsets({ box: { markers: [0.018, -0.011, 0.01], creationYaw: 0.45 } }).box!;
  const pivotAt = (pose: typeof known) => {
    const orientation = yawQuat(pose.theta - 0.45);
    const c = Math.cos(pose.theta);
    const s = Math.sin(pose.theta);
    return {
      position: [pose.x + c * 0.018 + s * 0.011, pose.y + s * 0.018 - c * 0.011, 0.02] as Vec3,
      orientation,
    };
  };

  it('gives the offset and creation yaw, which carry the pivot back to the object anywhere', () => {
    const m = pivotFromPlacement(pivotAt(known), known);
    expect(m.method).toBe('placement');
    expect(m.yaw).toBeCloseTo(truth.yaw, 9);
    expect(m.position[0]).toBeCloseTo(truth.position[0], 9);
    expect(m.position[1]).toBeCloseTo(truth.position[1], 9);
    // Moved and turned elsewhere, the measured offset puts the object where it is.
    const elsewhere = { x: 0.2, y: -0.15, theta: -1.2 };
    const o = applyPivot(pivotAt(elsewhere).position, pivotAt(elsewhere).orientation, m);
    expect(Math.hypot(o.position[0] - elsewhere.x, o.position[1] - elsewhere.y)).toBeLessThan(1e-9);
    expect(yawOf(o.orientation)).toBeCloseTo(elsewhere.theta, 9);
  });

  it('reads a pivot already on the object (reset in Motive) as motive-reset', () => {
    const m = pivotFromPlacement(
      { position: [known.x, known.y, 0.01], orientation: yawQuat(known.theta) },
      known,
    );
    expect(m.method).toBe('motive-reset');
  });
});

describe('pivot offsets in the setup and the scene binding', () => {
  it('bounds each offset: within 0.3 m and pi rad, finite, with its method', () => {
    const base = identityCalibration('y');
    const ok = { position: [0.01, -0.02, 0], yaw: 0.4, method: 'placement' };
    expect(calibrationSchema.safeParse({ ...base, pivots: { box: ok } }).success).toBe(true);
    for (const bad of [
      { ...ok, position: [0.5, 0, 0] },
      { ...ok, yaw: 4 },
      { ...ok, position: [Number.NaN, 0, 0] },
      { ...ok, method: 'typed' },
    ]) {
      const r = calibrationSchema.safeParse({ ...base, pivots: { box: bad } });
      expect(r.success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("turns each streamed pivot into its object's pose, and leaves a body without an offset at its pivot", () => {
    const c = identityCalibration('y');
    const pose = { x: 0.12, y: -0.05, theta: 0.7 };
    const markers: Vec3 = [0.02, 0.01, 0.03];
    const cy = Math.cos(pose.theta);
    const sy = Math.sin(pose.theta);
    // What the virtual Motive streams for a body created at yaw 0.5: Y-up, its pivot at the markers.
    const pivotTable: Vec3 = [
      pose.x + cy * markers[0] - sy * markers[1],
      pose.y + sy * markers[0] + cy * markers[1],
      0.05,
    ];
    const snapshot = {
      frameNumber: 1,
      receivedAt: 10,
      rigidBodies: [
        {
          id: 2,
          name: 'box',
          position: mocapPoint(c, pivotTable),
          orientation: mocapOrientation(c, yawQuat(pose.theta - 0.5)),
          meanError: 0,
          trackingValid: true,
        },
      ],
    };
    const binding = { sliders: [{ id: 'box', rigidBody: 'box' }] };
    const pivots = truePivotOffsets({ box: { markers, creationYaw: 0.5 } });
    const seen = toPlanarPoses(snapshot, binding, { ...c, pivots }).sliders[0]!.pose!;
    expect(seen.x).toBeCloseTo(pose.x, 9);
    expect(seen.y).toBeCloseTo(pose.y, 9);
    expect(seen.theta).toBeCloseTo(pose.theta, 9);
    const raw = toPlanarPoses(snapshot, binding, c).sliders[0]!.pose!;
    expect(Math.hypot(raw.x - pose.x, raw.y - pose.y)).toBeCloseTo(Math.hypot(markers[0], markers[1]), 9);
    expect(raw.theta).toBeCloseTo(pose.theta - 0.5, 9);
    // Y-up conversions are exercised both ways (the stream is Y-up).
    expect(pointFromZUp([1, 2, 3], 'y')).not.toEqual([1, 2, 3]);
    expect(orientationFromZUp(yawQuat(0.1), 'y')).not.toEqual(yawQuat(0.1));
  });
});
