/**
 * The lab setup bounds every safety field and owns the physical table (issue 16): a setup file
 * cannot widen the envelope with a negative margin, an inverted height band or a stop stretched
 * over seconds, and a scene cannot widen the workspace with a huge table.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { STOP_DECELERATION } from '#contract/safety-limits';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RobotState } from '../../src-main/robot/robot-state';
import {
  loadSetup,
  sceneTableProblem,
  setupSchema,
  type SetupInput,
} from '../../src-main/calibration/setup-file';
import { Supervisor, type SupervisedRobot } from '../../src-main/safety/supervisor';
import { labWorkspace } from '../../src-main/safety/workspace';

const setup: SetupInput = {
  name: 'bench',
  mocap: {
    setup: 'bench',
    kind: '3d',
    upAxis: 'y',
    rotation: [0, 0, 0, 1],
    translation: [0, 0, 0],
    residual: { rms: 0.001, max: 0.002, pairs: 4 },
    createdAt: new Date(0).toISOString(),
  },
  table: { size: { x: 1, y: 0.8 } },
  robot: { calibration: { yaw: 0, offset: [0.5, 0, 0] }, pusherOffset: [0, 0, 0.2] },
  safety: { workspaceMargin: 0.03, heightBand: [0, 0.02], maxCalibrationResidual: 0.003, acceleration: 0.5 },
};

function problems(mutate: (s: SetupInput & { safety: Record<string, unknown> }) => void): string[] {
  const s = structuredClone(setup) as SetupInput & { safety: Record<string, unknown> };
  mutate(s);
  const r = setupSchema.safeParse(s);
  expect(r.success, 'the setup was accepted').toBe(false);
  return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('lab setup bounds', () => {
  it('accepts a sensible setup', () => {
    expect(setupSchema.parse(setup).table.size).toEqual({ x: 1, y: 0.8 });
  });

  it.each([
    [
      'a negative margin',
      (s: { safety: Record<string, unknown> }) => (s.safety.workspaceMargin = -1),
      /^safety\.workspaceMargin: must be between 0\.01 and 0\.2 m/,
    ],
    [
      'an inverted height band',
      (s: { safety: Record<string, unknown> }) => (s.safety.heightBand = [0.5, -1]),
      /^safety\.heightBand\.\d: must be between -0\.005 and 0\.05 m/,
    ],
    [
      'a height band upside down within range',
      (s: { safety: Record<string, unknown> }) => (s.safety.heightBand = [0.02, 0]),
      /^safety\.heightBand: must be \[low, high\]/,
    ],
    [
      'a negative acceleration',
      (s: { safety: Record<string, unknown> }) => (s.safety.acceleration = -2),
      /^safety\.acceleration: must be between 0\.1 and 1\.5 m\/s\^2/,
    ],
    [
      'a 25 s stop (1e-6 m/s^2)',
      (s: { safety: Record<string, unknown> }) => (s.safety.acceleration = 1e-6),
      /^safety\.acceleration: must be between/,
    ],
    [
      'a 1 m calibration residual limit',
      (s: { safety: Record<string, unknown> }) => (s.safety.maxCalibrationResidual = 1),
      /^safety\.maxCalibrationResidual: must be between/,
    ],
    [
      'a margin that leaves no room',
      (s: { safety: Record<string, unknown> }) => (
        ((s as SetupInput).table = { size: { x: 0.3, y: 0.3 } }),
        (s.safety.workspaceMargin = 0.2)
      ),
      /^safety\.workspaceMargin: 0\.2 m leaves no room on the table \(table\.size\.x/,
    ],
    [
      'a 1e6 m lab table',
      (s: SetupInput) => (s.table = { size: { x: 1e6, y: 1 } }),
      /^table\.size\.x: must be between 0\.1 and 2 m/,
    ],
    ['no lab table', (s: Partial<SetupInput>) => delete s.table, /^table: /],
    [
      'a 5 m pusher offset',
      (s: SetupInput) => (s.robot.pusherOffset = [5, 0, 0]),
      /^robot\.pusherOffset\.0: must be between -0\.3 and 0\.3 m/,
    ],
    [
      'NaN',
      (s: { safety: Record<string, unknown> }) => (s.safety.workspaceMargin = Number.NaN),
      /^safety\.workspaceMargin: /,
    ],
  ])('refuses %s, naming the field', (_label, mutate, expected) => {
    const found = problems(mutate as (s: SetupInput & { safety: Record<string, unknown> }) => void);
    expect(
      found.some((p) => expected.test(p)),
      found.join('\n'),
    ).toBe(true);
  });

  it('names the file and the field when loading', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'setup-'));
    const file = path.join(dir, 'lab.json');
    writeFileSync(file, JSON.stringify({ ...setup, safety: { ...setup.safety, workspaceMargin: -1 } }));
    expect(() => loadSetup(file)).toThrow(
      /lab\.json: invalid lab setup\n\s+safety\.workspaceMargin: must be between/,
    );
  });
});

const parsed = setupSchema.parse(setup);

describe('the workspace comes from the lab setup', () => {
  it('refuses a scene table larger than the lab table, naming the fields', () => {
    const huge = { size: { x: 1e6, y: 1e6 } };
    expect(sceneTableProblem(parsed, huge)).toMatch(
      /scene table\.size\.x = 1000000 m is larger than the lab table \(setup table\.size\.x = 1 m\)/,
    );
    expect(() => labWorkspace(parsed, huge)).toThrow(/does not fit the lab.*table\.size\.y/);
  });

  it('narrows to a smaller scene table, with the setup margin and height band', () => {
    const ws = labWorkspace(parsed, { size: { x: 0.6, y: 0.16 } });
    expect(ws.halfX).toBeCloseTo(0.27, 12);
    expect(ws.halfY).toBeCloseTo(0.05, 12);
    expect([ws.zMin, ws.zMax]).toEqual([0, 0.02]);
  });
});

describe('supervisor stops', () => {
  it('decelerate at the one fixed stop deceleration, whatever the setup says', () => {
    const stops: (number | undefined)[] = [];
    const robot: SupervisedRobot = {
      latest: { tcpPose: [0, 0, 0.01], tcpSpeed: [0, 0, 0, 0, 0, 0], receivedAt: 0 } as unknown as RobotState,
      sendTwist: () => 1,
      stop: (a) => (stops.push(a), 1),
    };
    const sup = new Supervisor({
      robot,
      frame: { pusherInTable: (p) => ({ x: p[0]!, y: p[1]!, z: p[2]! }), tableToBase: (vx, vy) => [vx, vy] },
      workspace: labWorkspace(parsed, { size: { x: 1, y: 0.8 } }),
      maxSpeed: 0.1,
      acceleration: 0.1,
      robotStateMaxAge: Infinity,
      mocapMaxAge: Infinity,
      now: () => 0,
    });
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    expect(sup.command(0.05, 0)).toBe(true);
    sup.hold();
    sup.abort();
    expect(stops).toEqual([STOP_DECELERATION, STOP_DECELERATION]);
  });
});
