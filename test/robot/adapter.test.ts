import { describe, expect, it } from 'vitest';
import { CalibrationError } from '../../src-main/calibration/fit';
import { mulVec, rotationFromVector, rotZ, type Mat3 } from '../../src-main/common/rotation';
import { RobotAdapter } from '../../src-main/robot/adapter';

/** Tool pointing down (rotation vector [0, pi, 0]): tool z is base -z, tool x is base -x. */
const DOWN = [0, Math.PI, 0];

function rotX(a: number): Mat3 {
  return [
    [1, 0, 0],
    [0, Math.cos(a), -Math.sin(a)],
    [0, Math.sin(a), Math.cos(a)],
  ];
}

function matMul(a: Mat3, b: Mat3): Mat3 {
  return [0, 1, 2].map((i) =>
    [0, 1, 2].map((j) => a[i]![0] * b[0]![j]! + a[i]![1] * b[1]![j]! + a[i]![2] * b[2]![j]!),
  ) as Mat3;
}

describe('rotation vectors', () => {
  it('match known rotations', () => {
    const down = rotationFromVector(DOWN);
    expect(mulVec(down, [0, 0, 1]).map((v) => +v.toFixed(12) + 0)).toEqual([0, 0, -1]);
    expect(mulVec(down, [1, 0, 0]).map((v) => +v.toFixed(12) + 0)).toEqual([-1, 0, 0]);
    const quarter = rotationFromVector([0, 0, Math.PI / 2]);
    expect(mulVec(quarter, [1, 0, 0]).map((v) => +v.toFixed(12) + 0)).toEqual([0, 1, 0]);
    expect(mulVec(rotationFromVector([0, 0, 0]), [0.3, -0.2, 0.1])).toEqual([0.3, -0.2, 0.1]);
  });
});

describe('RobotAdapter', () => {
  const yaw = Math.PI / 2;
  const adapter = new RobotAdapter({
    calibration: { yaw, offset: [0.1, -0.5, 0.02] },
    pusherOffset: [0, 0, 0.15],
  });

  it('rotates a table-frame pusher velocity into the base frame', () => {
    const [vx, vy] = adapter.toolVelocity(0.1, 0);
    expect(vx).toBeCloseTo(0, 12);
    expect(vy).toBeCloseTo(0.1, 12);
    const [wx, wy] = adapter.toolVelocity(0.03, -0.04);
    expect(Math.hypot(wx, wy)).toBeCloseTo(0.05, 12);
  });

  it('places the pusher at the tool offset and maps it into the table frame', () => {
    // Tool pointing down at base (0.1, -0.3, 0.3): the pusher is 0.15 m below the TCP.
    const p = adapter.pusherPosition([0.1, -0.3, 0.3, ...DOWN]);
    // Base point (0.1, -0.3, 0.15) minus table origin (0.1, -0.5, 0.02) = (0, 0.2, 0.13), rotated by -90 deg.
    expect(p.x).toBeCloseTo(0.2, 12);
    expect(p.y).toBeCloseTo(0, 12);
    expect(p.z).toBeCloseTo(0.13, 12);
  });

  it('toolPosition inverts pusherPosition for any held orientation', () => {
    for (const r of [DOWN, [0.1, 3.0, -0.2], [0, 0, 0]]) {
      const pusher = { x: -0.07, y: 0.12, z: 0.01 };
      const tool = adapter.toolPosition(pusher, r);
      const back = adapter.pusherPosition([...tool, ...r]);
      expect(back.x).toBeCloseTo(pusher.x, 12);
      expect(back.y).toBeCloseTo(pusher.y, 12);
      expect(back.z).toBeCloseTo(pusher.z, 12);
    }
  });

  it('accounts for rotation of the tool in the pusher velocity (omega x offset)', () => {
    // Tool at rest but spinning about base z at 1 rad/s with the pusher 0.15 m out along base x.
    const a = new RobotAdapter({ calibration: { yaw: 0, offset: [0, 0, 0] }, pusherOffset: [0.15, 0, 0] });
    const v = a.pusherVelocity([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]);
    expect(v.vx).toBeCloseTo(0, 12);
    expect(v.vy).toBeCloseTo(0.15, 12);
    // Pure translation: the pusher moves with the tool, expressed in the table frame.
    const w = adapter.pusherVelocity([0, 0.1, 0, 0, 0, 0], [0, 0, 0, ...DOWN]);
    expect(w.vx).toBeCloseTo(0.1, 12);
    expect(w.vy).toBeCloseTo(0, 12);
  });

  it('accepts an R/t calibration and agrees with yaw/offset', () => {
    const b = new RobotAdapter({
      calibration: { R: rotZ(yaw), t: [0.1, -0.5, 0.02] },
      pusherOffset: [0, 0, 0.15],
    });
    expect(b.yaw).toBeCloseTo(yaw, 12);
    expect(b.tilt).toBeCloseTo(0, 7);
    const pose = [0.2, -0.1, 0.25, ...DOWN];
    expect(b.pusherPosition(pose).x).toBeCloseTo(adapter.pusherPosition(pose).x, 12);
  });

  it('measures a small tilt and refuses a large one, reflections and non-rotations', () => {
    const slight = new RobotAdapter({
      calibration: { R: matMul(rotZ(0.3), rotX(0.01)), t: [0, 0, 0] },
      pusherOffset: [0, 0, 0],
    });
    expect(slight.tilt).toBeCloseTo(0.01, 9);
    expect(slight.yaw).toBeCloseTo(0.3, 9);
    expect(
      () => new RobotAdapter({ calibration: { R: rotX(0.1), t: [0, 0, 0] }, pusherOffset: [0, 0, 0] }),
    ).toThrow(/tilted 5\.73 deg/);
    const mirror: Mat3 = [
      [1, 0, 0],
      [0, -1, 0],
      [0, 0, 1],
    ];
    expect(
      () => new RobotAdapter({ calibration: { R: mirror, t: [0, 0, 0] }, pusherOffset: [0, 0, 0] }),
    ).toThrow(CalibrationError);
    const scaled: Mat3 = [
      [2, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
    expect(
      () => new RobotAdapter({ calibration: { R: scaled, t: [0, 0, 0] }, pusherOffset: [0, 0, 0] }),
    ).toThrow(/not orthonormal/);
  });
});
