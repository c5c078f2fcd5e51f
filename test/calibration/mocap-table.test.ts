import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CalibrationError } from '../../src-main/calibration/fit';
import {
  fitCalibration2d,
  fitCalibration3d,
  loadCalibration,
  saveCalibration,
  tableOrientation,
  tablePoint,
  type PointPair,
} from '../../src-main/calibration/mocap-table';
import {
  pointFromZUp,
  orientationFromZUp,
  orientationToZUp,
  pointToZUp,
} from '../../src-main/calibration/axes';
import {
  axisAngle,
  quatMultiply,
  rotate,
  yawOf,
  yawQuat,
  type Quat,
  type Vec3,
} from '../../src-main/common/rotation';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-calib-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Table points and the mocap readings of them under a known transform (mocap = R^-1 (table - t)). */
function pairsFor(rotation: Quat, translation: Vec3, up: 'y' | 'z', noise = 0): PointPair[] {
  const table: Vec3[] = [
    [0.4, 0.3, 0],
    [-0.4, 0.3, 0],
    [-0.4, -0.3, 0],
    [0.4, -0.3, 0],
    [0, 0, 0.1],
  ];
  const inv: Quat = [-rotation[0], -rotation[1], -rotation[2], rotation[3]];
  let k = 0;
  return table.map((t) => {
    const zUp = rotate(inv, [t[0] - translation[0], t[1] - translation[1], t[2] - translation[2]]);
    const jitter = noise * (k++ % 2 === 0 ? 1 : -1);
    return { mocap: pointFromZUp([zUp[0] + jitter, zUp[1], zUp[2]], up), table: t };
  });
}

describe('axes', () => {
  it('Y-up points become Z-up with up -> +z, and back', () => {
    expect(pointToZUp([1, 2, 3], 'y')).toEqual([1, -3, 2]);
    expect(pointFromZUp(pointToZUp([1, 2, 3], 'y'), 'y')).toEqual([1, 2, 3]);
    expect(pointToZUp([1, 2, 3], 'z')).toEqual([1, 2, 3]);
  });

  it('a turn about Motive y (Y-up) is a yaw about z', () => {
    const q = axisAngle([0, 1, 0], 0.7);
    expect(yawOf(orientationToZUp(q, 'y'))).toBeCloseTo(0.7, 12);
    const back = orientationFromZUp(orientationToZUp(q, 'y'), 'y');
    back.forEach((c, i) => expect(c).toBeCloseTo(q[i]!, 12));
  });
});

describe('calibration fit', () => {
  const rotation = quatMultiply(yawQuat(0.6), axisAngle([1, 0.3, 0], 0.05));
  const translation: Vec3 = [0.25, -1.2, 0.03];

  it.each(['y', 'z'] as const)('3D fit recovers a known transform exactly (%s-up)', (up) => {
    const c = fitCalibration3d(pairsFor(rotation, translation, up), up, 'lab-a');
    expect(c.residual.rms).toBeLessThan(1e-9);
    expect(c.residual.pairs).toBe(5);
    const sign = Math.sign(c.rotation[3]) * Math.sign(rotation[3]);
    c.rotation.forEach((v, i) => expect(v * sign).toBeCloseTo(rotation[i]!, 9));
    c.translation.forEach((v, i) => expect(v).toBeCloseTo(translation[i]!, 9));
    const probe: Vec3 = [0.1, 0.2, 0.3];
    const mocap = pointFromZUp(
      rotate(
        [-rotation[0], -rotation[1], -rotation[2], rotation[3]],
        [probe[0] - translation[0], probe[1] - translation[1], probe[2] - translation[2]],
      ),
      up,
    );
    tablePoint(c, mocap).forEach((v, i) => expect(v).toBeCloseTo(probe[i]!, 9));
  });

  it('reports the residual of noisy points', () => {
    const c = fitCalibration3d(pairsFor(rotation, translation, 'y', 0.002), 'y', 'noisy');
    expect(c.residual.rms).toBeGreaterThan(0.0005);
    expect(c.residual.rms).toBeLessThan(0.003);
    expect(c.residual.max).toBeGreaterThanOrEqual(c.residual.rms);
  });

  it('2D fit recovers yaw and planar offset', () => {
    const planar = yawQuat(-2.5);
    const c = fitCalibration2d(pairsFor(planar, [0.5, 0.1, -0.02], 'z'), 'z', 'flat');
    expect(c.kind).toBe('2d');
    expect(yawOf(c.rotation)).toBeCloseTo(-2.5, 9);
    expect(c.translation[0]).toBeCloseTo(0.5, 9);
    expect(c.translation[1]).toBeCloseTo(0.1, 9);
    expect(c.translation[2]).toBeCloseTo(-0.02, 9);
    expect(yawOf(tableOrientation(c, yawQuat(0.5)))).toBeCloseTo(-2.0, 9);
  });

  it('rejects fewer than 3 pairs and collinear points', () => {
    const pairs = pairsFor(rotation, translation, 'z');
    expect(() => fitCalibration3d(pairs.slice(0, 2), 'z', 'x')).toThrow(CalibrationError);
    const line: PointPair[] = [0, 1, 2, 3].map((i) => ({ mocap: [i * 0.1, 0, 0], table: [i * 0.1, 0] }));
    expect(() => fitCalibration3d(line, 'z', 'x')).toThrow(/line/);
    expect(() => fitCalibration2d(line, 'z', 'x')).toThrow(/line/);
  });

  it('saves and loads per setup, and rejects an invalid file', () => {
    const c = fitCalibration3d(pairsFor(rotation, translation, 'y'), 'y', 'bench-2');
    const file = saveCalibration(tmp, c);
    expect(path.basename(file)).toBe('bench-2.json');
    expect(loadCalibration(tmp, 'bench-2')).toEqual(c);
    writeFileSync(path.join(tmp, 'broken.json'), JSON.stringify({ ...c, setup: 'broken', rotation: [1, 2] }));
    expect(() => loadCalibration(tmp, 'broken')).toThrow(CalibrationError);
    expect(() => loadCalibration(tmp, '../escape')).toThrow();
  });
});
