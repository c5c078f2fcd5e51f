/**
 * Motive's streaming up axis and units judged from what arrives (mocap/streamed-axes.ts): bodies
 * turned about the stream's up axis by the virtual server's own transform, in both conventions.
 */
import { describe, expect, it } from 'vitest';
import { identityCalibration, mocapOrientation, mocapPoint } from '../../src-main/calibration/mocap-table';
import { axisAngle } from '../../src-main/common/rotation';
import { judgeStreamedAxes, turnAxis, UNITS_FIX, UP_AXIS_FIX } from '../../src-main/mocap/streamed-axes';

/** A body on the table at (x, y) turned by `yaw`, as Motive streams it with `up` (metres). */
function body(name: string, up: 'y' | 'z', x: number, y: number, yaw: number) {
  const c = identityCalibration(up);
  return {
    name,
    position: mocapPoint(c, [x, y, 0.02]),
    orientation: mocapOrientation(c, axisAngle([0, 0, 1], yaw)),
    trackingValid: true,
  };
}

describe("Motive's up axis and units, judged from the bodies that arrive", () => {
  it('a table body turns about the stream up axis in both conventions', () => {
    expect(turnAxis(body('Box', 'y', 0.2, 0.1, 0.4).orientation)).toBe('y');
    expect(turnAxis(body('Box', 'z', 0.2, 0.1, 0.4).orientation)).toBe('z');
    expect(turnAxis(body('Box', 'z', 0.2, 0.1, 0.01).orientation)).toBeUndefined();
  });

  it('passes a stream in the setup axis, in metres', () => {
    const r = judgeStreamedAxes([body('Pusher', 'y', 0, 0, -0.3), body('Box', 'y', 0.3, 0.1, 0.5)], 'y');
    expect(r).toEqual({ ok: true, reason: 'Y-up as the setup, positions in metres' });
  });

  it('refuses a Z-up stream to a Y-up setup, naming the Motive setting', () => {
    const r = judgeStreamedAxes([body('Pusher', 'z', 0, 0, -0.3), body('Box', 'z', 0.3, 0.1, 0.5)], 'y');
    expect(r.ok).toBe(false);
    expect(r.reason).toContain('Motive streams Z-up (Pusher, Box turn about its z axis), the setup is Y-up');
    expect(r.fix).toBe(UP_AXIS_FIX('y'));
    expect(r.fix).toMatch(/^in Motive, Settings > Streaming > Up Axis: set Y/);
  });

  it('refuses a Y-up stream to a Z-up setup', () => {
    const r = judgeStreamedAxes([body('Box', 'y', 0.3, 0.1, 0.5)], 'z');
    expect(r.ok).toBe(false);
    expect(r.fix).toMatch(/Up Axis: set Z/);
  });

  it('cannot tell the axis from bodies at their creation yaw, and says so', () => {
    const r = judgeStreamedAxes([body('Box', 'z', 0.3, 0.1, 0)], 'y');
    expect(r.ok).toBe(true);
    expect(r.reason).toContain('up axis not shown yet');
  });

  it('refuses positions in millimetres: a body farther from the origin than a room', () => {
    const b = body('Box', 'y', 0.4, -0.2, 0.5);
    const mm = { ...b, position: b.position.map((c) => c * 1000) as [number, number, number] };
    const r = judgeStreamedAxes([mm], 'y');
    expect(r.ok).toBe(false);
    expect(r.reason).toContain('positions arrive in millimetres');
    expect(r.fix).toBe(UNITS_FIX);
  });

  it('judges only tracked bodies', () => {
    const lost = { ...body('Box', 'z', 0.3, 0.1, 0.5), trackingValid: false };
    expect(judgeStreamedAxes([lost], 'y')).toEqual({
      ok: false,
      reason: 'no tracked rigid body to judge the stream by',
    });
  });
});
