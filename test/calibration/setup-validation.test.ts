/**
 * A setup file's calibration numbers are checked on load, not trusted (issue 47, item 7): unit
 * quaternions, finite translations within a lab, residuals that are distances and agree with
 * the points they summarise; pre-flight reads the residual recomputed from the stored points.
 */
import { describe, expect, it } from 'vitest';
import { fitCalibration3d, type PointPair } from '../../src-main/calibration/mocap-table';
import { fitRobotBase } from '../../src-main/calibration/robot-base';
import { checkResidual } from '../../src-main/calibration/residual';
import { setupResidual, setupSchema, type SetupInput } from '../../src-main/calibration/setup-file';
import type { Vec3 } from '../../src-main/common/rotation';

/** Four table corners seen by a Y-up motion capture 1 m away, with `noise` m on one of them. */
function pairs(noise = 0): PointPair[] {
  const table: [number, number][] = [
    [0.4, 0.3],
    [-0.4, 0.3],
    [-0.4, -0.3],
    [0.4, -0.3],
  ];
  // Y-up: mocap (x, y, z) = table (x, z_table, -y) shifted by 1 m along x.
  return table.map(([x, y], i) => ({ mocap: [x + 1 + (i === 0 ? noise : 0), 0, -y], table: [x, y] }));
}

const mocap = fitCalibration3d(pairs(0.002), 'y', 'bench');
const tablePoints: Vec3[] = [
  [0.3, 0.2, 0],
  [-0.3, 0.2, 0],
  [0, -0.25, 0],
];
const robotFit = fitRobotBase(
  tablePoints,
  tablePoints.map(([x, y], i) => [x + 0.5 + (i === 1 ? 0.001 : 0), y, 0] as Vec3),
);

const setup: SetupInput = {
  name: 'bench',
  mocap,
  table: { size: { x: 1, y: 0.8 } },
  robot: {
    calibration: robotFit.calibration,
    pusherOffset: [0, 0, 0.2],
    residual: robotFit.residual,
    points: robotFit.points,
  },
};

type Mutable = { mocap: Record<string, unknown>; robot: Record<string, unknown> };

function problems(mutate: (s: Mutable) => void): string[] {
  const s = structuredClone(setup) as unknown as Mutable;
  mutate(s);
  const r = setupSchema.safeParse(s);
  expect(r.success, 'the setup was accepted').toBe(false);
  return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('calibration numbers on load', () => {
  it('keeps the points of a fit and recomputes its residual from them', () => {
    const parsed = setupSchema.parse(setup);
    expect(parsed.mocap.points).toHaveLength(4);
    expect(parsed.robot.points).toHaveLength(3);
    const rms = setupResidual(parsed);
    expect(rms).toBeCloseTo(Math.max(mocap.residual.rms, robotFit.residual.rms), 12);
    expect(rms).toBeGreaterThan(0.0004);
  });

  it.each([
    [
      'a zero quaternion',
      (s: Mutable) => (s.mocap['rotation'] = [0, 0, 0, 0]),
      /^mocap\.rotation: must be a unit quaternion/,
    ],
    [
      'a non-unit quaternion',
      (s: Mutable) => (s.mocap['rotation'] = [0, 0, 0, 2]),
      /^mocap\.rotation: must be a unit quaternion/,
    ],
    [
      'a translation of 1e308',
      (s: Mutable) => (s.mocap['translation'] = [1e308, 0, 0]),
      /^mocap\.translation\.0: must be within ±10 m/,
    ],
    [
      'a translation of -1e308',
      (s: Mutable) => (s.mocap['translation'] = [0, -1e308, 0]),
      /^mocap\.translation\.1: must be within ±10 m/,
    ],
    [
      'a robot offset of 1e308',
      (s: Mutable) => (s.robot['calibration'] = { yaw: 0, offset: [1e308, 0, 0] }),
      /^robot\.calibration/,
    ],
    [
      'a robot R that is not a rotation',
      (s: Mutable) =>
        (s.robot['calibration'] = {
          R: [
            [2, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
          ],
          t: [0.5, 0, 0],
        }),
      /^robot\.calibration/,
    ],
    [
      'a negative residual',
      (s: Mutable) => (s.mocap['residual'] = { rms: -1, max: -1, pairs: 4 }),
      /^mocap\.residual\.rms: must be 0 or more/,
    ],
    [
      'rms above max',
      (s: Mutable) => (s.mocap['residual'] = { rms: 0.002, max: 0.001, pairs: 4 }),
      /^mocap\.residual\.rms: rms cannot be above max/,
    ],
    [
      'a residual that is not what the points give',
      (s: Mutable) => (s.mocap['residual'] = { rms: 0.0001, max: 0.0002, pairs: 4 }),
      /^mocap\.residual: the stored residual .* is not what its 4 points give/,
    ],
    [
      'a robot residual that is not what the points give',
      (s: Mutable) => (s.robot['residual'] = { rms: 0, max: 0.0001, pairs: 3 }),
      /^robot\.residual: the stored residual .* is not what its 3 points give/,
    ],
    [
      'a point far off',
      (s: Mutable) => ((s.mocap['points'] as PointPair[])[0]!.mocap = [1e308, 0, 0]),
      /^mocap\.points\.0\.mocap\.0: must be within ±10 m/,
    ],
  ])('refuses %s', (_what, mutate, expected) => {
    expect(problems(mutate)).toEqual(expect.arrayContaining([expect.stringMatching(expected)]));
  });

  it('pre-flight reads the recomputed residual: a file that claims a small one does not pass', () => {
    // Points 3 cm off: a residual far above the 3 mm limit, whatever the file says of it.
    const off = fitCalibration3d(pairs(0.03), 'y', 'bench');
    expect(checkResidual(setupResidual(setupSchema.parse({ ...setup, mocap: off })), 0.003).ok).toBe(false);
    const claimed = { ...off, residual: { rms: 0.0001, max: 0.0002, pairs: 4 } };
    expect(setupSchema.safeParse({ ...setup, mocap: claimed }).success).toBe(false);
  });

  it('a residual of -1 no longer passes pre-flight, and one without its points cannot be checked', () => {
    const { points: _points, ...withoutPoints } = mocap;
    expect(
      setupSchema.safeParse({
        ...setup,
        mocap: { ...withoutPoints, residual: { rms: -1, max: 0, pairs: 4 } },
      }).success,
    ).toBe(false);
    const unverified = setupSchema.parse({ ...setup, mocap: withoutPoints });
    expect(setupResidual(unverified)).toBeNull();
    expect(checkResidual(setupResidual(unverified), 0.003)).toEqual({
      ok: false,
      reason: 'the residual cannot be checked: the setup keeps no calibration points (calibrate again)',
    });
  });

  it('a calibration fitted from no points (the virtual lab, by hand) counts as exact', () => {
    const truth = { ...withoutPointsOf(mocap), residual: { rms: 0, max: 0, pairs: 0 } };
    const byHand = setupSchema.parse({
      ...setup,
      mocap: truth,
      robot: { calibration: { yaw: 0, offset: [0.5, 0, 0] }, pusherOffset: [0, 0, 0.2] },
    });
    expect(setupResidual(byHand)).toBe(0);
    // "0 pairs" with a residual is a claim of a fit with nothing to show for it.
    expect(
      setupSchema.safeParse({ ...setup, mocap: { ...truth, residual: { rms: 0.001, max: 0.001, pairs: 0 } } })
        .success,
    ).toBe(false);
  });
});

function withoutPointsOf<T extends { points?: unknown }>(c: T): Omit<T, 'points'> {
  const { points: _points, ...rest } = c;
  return rest;
}
