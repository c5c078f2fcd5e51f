/**
 * Every safety limit is defined once, in contract/safety-limits.ts (issue 49): each schema refuses
 * just past its limit and takes the limit itself, the supervisor stops just past its defaults, and
 * docs/safety.md's table names every constant of the module, quotes its value and names files
 * that exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as limits from '#contract/safety-limits';
import {
  CONTROL_PROGRAM_DEFAULTS,
  CONTROL_PROGRAM_LIMITS,
  DRIFT_TIMING,
  LOOKAHEAD_CLEARANCE,
  MAX_CONTROL_DURATION,
  SAFETY_MESSAGE_LIMITS,
  SCENE_LIMITS,
  SETUP_LIMITS,
  STOP_DECELERATION,
  SUPERVISOR_DEFAULTS,
  TOOL_SPEED_CAP,
  YAW_RATE_CAP,
} from '#contract/safety-limits';
import { defaultPlannerSettings, plannerSettingsSchema } from '#contract/planner-settings';
import { sceneSchema } from '#contract/scene';
import { setupSchema } from '../../src-main/calibration/setup-file';
import { supervisorConfigSchema } from '../../src-main/lab-link/safety-thread/messages';
import { controlProgramSettingsSchema } from '../../src-main/robot/control-program';
import type { RobotState } from '../../src-main/robot/robot-state';
import { pusherDrift } from '../../src-main/safety/calibration-agreement';
import { sceneGuardFor } from '../../src-main/safety/scene-guard';
import { Supervisor, type SupervisedRobot } from '../../src-main/safety/supervisor';
import { workspaceFor } from '../../src-main/safety/workspace';
import { labSetupFor } from '../helpers/lab-setup';
import { referenceScene, repoRoot } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');
/** Just past a limit, by more than rounding. */
const past = (limit: number) => limit * (1 + 1e-6) + 1e-9;

describe('each schema bounds its fields by the module', () => {
  const sceneWith = (limitsOfScene: object) =>
    sceneSchema.safeParse({ ...scene, limits: limitsOfScene }).success;

  it('a scene: the pusher speed at most TOOL_SPEED_CAP, a gripper yaw rate at most YAW_RATE_CAP', () => {
    expect(SCENE_LIMITS.maxPusherSpeed).toBe(TOOL_SPEED_CAP);
    expect(SCENE_LIMITS.maxYawRate).toBe(YAW_RATE_CAP);
    expect(sceneWith({ maxPusherSpeed: TOOL_SPEED_CAP })).toBe(true);
    expect(sceneWith({ maxPusherSpeed: past(TOOL_SPEED_CAP) })).toBe(false);
    const fine = (timestep: number) => sceneSchema.safeParse({ ...scene, fine: { timestep } }).success;
    expect(fine(SCENE_LIMITS.fineTimestep.max)).toBe(true);
    expect(fine(past(SCENE_LIMITS.fineTimestep.max))).toBe(false);
  });

  it('a setup: the workspace margin and the calibration residual within SETUP_LIMITS', () => {
    const setup = labSetupFor(scene);
    const safety = (fields: object) =>
      setupSchema.safeParse({ ...setup, safety: { ...setup.safety, ...fields } }).success;
    expect(safety({ workspaceMargin: SETUP_LIMITS.workspaceMargin.max })).toBe(true);
    expect(safety({ workspaceMargin: past(SETUP_LIMITS.workspaceMargin.max) })).toBe(false);
    expect(safety({ maxCalibrationResidual: past(SETUP_LIMITS.maxCalibrationResidual.max) })).toBe(false);
    expect(safety({ acceleration: past(SETUP_LIMITS.acceleration.max) })).toBe(false);
  });

  it('the control program: the speed cap is the tool cap, the defaults are CONTROL_PROGRAM_DEFAULTS', () => {
    expect(CONTROL_PROGRAM_LIMITS.maxSpeed).toBe(TOOL_SPEED_CAP);
    expect(controlProgramSettingsSchema.parse({})).toEqual(CONTROL_PROGRAM_DEFAULTS);
    expect(controlProgramSettingsSchema.safeParse({ maxSpeed: TOOL_SPEED_CAP }).success).toBe(true);
    expect(controlProgramSettingsSchema.safeParse({ maxSpeed: past(TOOL_SPEED_CAP) }).success).toBe(false);
    expect(controlProgramSettingsSchema.safeParse({ maxYawRate: past(YAW_RATE_CAP) }).success).toBe(false);
    const watchdog = CONTROL_PROGRAM_LIMITS.watchdogTimeout.max;
    expect(controlProgramSettingsSchema.safeParse({ watchdogTimeout: past(watchdog) }).success).toBe(false);
  });

  it('planner settings: a control at most MAX_CONTROL_DURATION', () => {
    const settings = (controlDuration: number) =>
      plannerSettingsSchema.safeParse({ ...defaultPlannerSettings, controlDuration }).success;
    expect(settings(MAX_CONTROL_DURATION)).toBe(true);
    expect(settings(past(MAX_CONTROL_DURATION))).toBe(false);
  });

  it('the safety thread: a staleness age at most SAFETY_MESSAGE_LIMITS.maxAge, the defaults inside', () => {
    expect(supervisorConfigSchema.safeParse({ mocapMaxAge: SAFETY_MESSAGE_LIMITS.maxAge }).success).toBe(
      true,
    );
    expect(
      supervisorConfigSchema.safeParse({ mocapMaxAge: past(SAFETY_MESSAGE_LIMITS.maxAge) }).success,
    ).toBe(false);
    expect(supervisorConfigSchema.safeParse(SUPERVISOR_DEFAULTS).success).toBe(true);
  });
});

describe('the supervisor and its helpers use the module', () => {
  function supervisor(options: { mocapMaxAge?: number } = {}) {
    let t = 0;
    const stops: (number | undefined)[] = [];
    const robot: SupervisedRobot & { latest: RobotState | undefined } = {
      latest: undefined,
      sendTwist: () => 0,
      stop: (a) => (stops.push(a), 0),
    };
    const sup = new Supervisor({
      robot,
      frame: { pusherInTable: (p) => ({ x: p[0]!, y: p[1]!, z: p[2]! }), tableToBase: (vx, vy) => [vx, vy] },
      workspace: workspaceFor(scene.table, 0.05, [0.03, 0.15]),
      maxSpeed: 0.1,
      acceleration: 0.5,
      now: () => t,
      ...options,
    });
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    return { sup, robot, stops, at: (seconds: number) => (t = seconds) };
  }

  it('stops for stale motion capture just past SUPERVISOR_DEFAULTS.mocapMaxAge, not at it', () => {
    const { sup, stops, at } = supervisor();
    at(SUPERVISOR_DEFAULTS.mocapMaxAge);
    sup.tick();
    expect(sup.state).toBe('running');
    at(past(SUPERVISOR_DEFAULTS.mocapMaxAge));
    sup.tick();
    expect(sup.stopReason?.code).toBe('mocap-stale');
    expect(stops).toEqual([STOP_DECELERATION]);
  });

  it('stops for a stale robot state just past SUPERVISOR_DEFAULTS.robotStateMaxAge, not at it', () => {
    const { sup, robot, at } = supervisor({ mocapMaxAge: 1 });
    robot.latest = { receivedAt: 0 } as RobotState;
    at(SUPERVISOR_DEFAULTS.robotStateMaxAge);
    sup.tick();
    expect(sup.state).toBe('running');
    at(past(SUPERVISOR_DEFAULTS.robotStateMaxAge));
    sup.tick();
    expect(sup.stopReason?.code).toBe('robot-state-stale');
  });

  it('the command gap is the control program watchdog; the guard keeps LOOKAHEAD_CLEARANCE', () => {
    expect(SUPERVISOR_DEFAULTS.commandMaxGap).toBe(CONTROL_PROGRAM_DEFAULTS.watchdogTimeout);
    expect(sceneGuardFor(scene).clearance).toBe(LOOKAHEAD_CLEARANCE);
  });

  it('the calibration agreement adds the tool speed times DRIFT_TIMING', () => {
    const frame = { pusherInTable: () => ({ x: 0, y: 0 }) };
    const d = pusherDrift(
      { x: 0, y: 0 },
      { tcpPose: [0, 0, 0, 0, 0, 0], tcpSpeed: [0.2, 0, 0, 0, 0, 0] },
      frame,
      0.005,
    );
    expect(d.limit).toBeCloseTo(0.005 + 0.2 * DRIFT_TIMING, 12);
  });
});

/** `NAME` or `NAME.path` of the module's exports named in a table cell. */
function constantsIn(cell: string): string[] {
  return [...cell.matchAll(/`([A-Z][A-Z0-9_]*(?:\.[a-zA-Z]+)*)`/g)]
    .map((m) => m[1]!)
    .filter((name) => name.split('.')[0]! in limits);
}

function resolve(name: string): unknown {
  return name.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown>)[key], limits);
}

/** Every numeric leaf of the module, by its dotted name. */
function leaves(value: unknown, name: string): string[] {
  if (typeof value === 'number') return [name];
  return Object.entries(value as object).flatMap(([k, v]) => leaves(v, `${name}.${k}`));
}

/** Whether the value column quotes `v` (in its unit, in milli-units, or pi). */
function quoted(cell: string, v: number): boolean {
  if (v === Math.PI) return /\bpi\b/.test(cell);
  const numbers = [...cell.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  return [1, 1000].some((k) =>
    [0, 1, 2, 3, 4].some((d) => numbers.includes(Number((v * k).toFixed(d))) && Math.abs(v * k) >= 10 ** -d),
  );
}

describe("docs/safety.md's table of limits", () => {
  const doc = readFileSync(path.join(repoRoot, 'docs/safety.md'), 'utf8');
  const start = doc.indexOf('| limit | value |');
  const rows = doc
    .slice(start)
    .split('\n')
    .slice(2)
    .filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('| ')))
    .map((l) => l.split(' | '));

  it('names every constant of the module, quoting each single value it names', () => {
    expect(rows.length).toBeGreaterThan(20);
    const named = rows.flatMap((cells) => {
      const [value, where] = [cells[1]!, cells[3]!];
      const names = constantsIn(where);
      for (const name of names) {
        const v = resolve(name);
        expect(v, `${name} is not in contract/safety-limits.ts`).toBeDefined();
        if (typeof v === 'number')
          expect(quoted(value, v), `${name} = ${v} not quoted in "${value}"`).toBe(true);
      }
      return names;
    });
    const all = Object.entries(limits).flatMap(([k, v]) => leaves(v, k));
    const unnamed = all.filter((leaf) => !named.some((n) => leaf === n || leaf.startsWith(`${n}.`)));
    expect(unnamed).toEqual([]);
  });

  it('names files that exist', () => {
    const files = rows.flatMap((cells) =>
      [...cells[3]!.matchAll(/`([a-z][\w/.-]*\.(?:ts|script))`/g)].map((m) => m[1]!),
    );
    expect(files.length).toBeGreaterThan(20);
    const missing = files.filter(
      (f) => !['', 'src-main', 'src-shared'].some((root) => existsSync(path.join(repoRoot, root, f))),
    );
    expect(missing).toEqual([]);
  });
});
