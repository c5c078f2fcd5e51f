import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Supervisor,
  type Decision,
  type SupervisedRobot,
  type ToolFrame,
} from '../../src-main/safety/supervisor';
import { workspaceFor } from '../../src-main/safety/workspace';
import { preflight, type PreflightInputs } from '../../src-main/safety/preflight';
import { recoverFromProtectiveStop } from '../../src-main/safety/recovery';
import type { RobotState } from '../../src-main/robot/robot-state';
import { LinkDownError } from '../../src-main/robot/ur5-connection';
import type { PlanarPoses, BodyEstimate } from '../../src-main/mocap/scene-binding';
import { referenceScene } from '../helpers/scenes';
import { labSetupFor } from '../helpers/lab-setup';
import { readyRobotState } from '../helpers/robot-state';

const scene = referenceScene('isrr-obstacle');

/** A robot that records what reaches the wire. */
class FakeRobot implements SupervisedRobot {
  latest: RobotState | undefined = readyRobotState();
  wire: { kind: 'twist' | 'stop'; vx?: number; vy?: number }[] = [];
  sendTwist(vx: number, vy: number): number {
    this.wire.push({ kind: 'twist', vx, vy });
    return this.wire.length;
  }
  stop(): number {
    this.wire.push({ kind: 'stop' });
    return this.wire.length;
  }
}

// Table frame = base frame shifted: tool (x, y) is the pusher, z its height above the table.
const frame: ToolFrame = {
  pusherInTable: (p) => ({ x: p[0]!, y: p[1]!, z: p[2]! }),
  tableToBase: (vx, vy) => [vx, vy],
};
const workspace = workspaceFor(scene.table, 0.05, [0.03, 0.15]);

function setup() {
  let t = 0;
  const robot = new FakeRobot();
  const sup = new Supervisor({ robot, frame, workspace, maxSpeed: 0.1, acceleration: 0.5, now: () => t });
  const decisions: Decision[] = [];
  sup.on('decision', (d) => decisions.push(d));
  return {
    robot,
    sup,
    decisions,
    /** Moves the clock on by `seconds`. */
    advance: (seconds: number) => {
      t += seconds;
      if (robot.latest) robot.latest = { ...robot.latest, receivedAt: t };
    },
  };
}

const green = { ok: true, checks: [] };

function body(status: BodyEstimate['status'], name = 'object'): BodyEstimate {
  return {
    rigidBody: name,
    raw: { position: [0, 0, 0], orientation: [0, 0, 0, 1] },
    repeated: null,
    pose: { x: 0, y: 0, theta: 0 },
    z: 0,
    poseTime: 0,
    tracked: status === 'ok',
    age: status === 'stale' ? 0.2 : 0,
    stale: status === 'stale',
    status,
  };
}
function poses(status: BodyEstimate['status'] = 'ok'): PlanarPoses {
  return {
    frameNumber: 1,
    pusher: body('ok', 'pusher'),
    sliders: [{ ...body(status), id: 'object' }],
    ok: status === 'ok',
  };
}

describe('safety supervisor', () => {
  it('refuses to arm unless every pre-flight check is green, and a run needs arming', () => {
    const { sup, decisions } = setup();
    expect(
      sup.arm({
        ok: false,
        checks: [{ id: 'pusher-held', label: 'Pusher held', ok: false, reason: 'OBJ 3' }],
      }),
    ).toBe(false);
    expect(decisions.at(-1)).toMatchObject({ kind: 'arm-refused', failed: ['Pusher held: OBJ 3'] });
    expect(() => sup.startRun()).toThrow(/arm it/);
    expect(sup.arm(green)).toBe(true);
    sup.startRun();
    expect(sup.state).toBe('running');
  });

  it('abort puts a stop on the wire synchronously and says "Aborted by operator"', () => {
    const { sup, robot, decisions } = setup();
    sup.arm(green);
    sup.startRun();
    sup.command(0.05, 0);
    sup.abort();
    expect(robot.wire.at(-1)).toEqual({ kind: 'stop' });
    expect(decisions.at(-1)).toMatchObject({ kind: 'stop', message: 'Aborted by operator' });
    expect(sup.command(0.05, 0)).toBe(false);
    expect(robot.wire.filter((w) => w.kind === 'twist')).toHaveLength(1);
  });

  it('stops the run, naming the lost link, when a command finds the robot link down', () => {
    const { robot, sup, decisions } = setup();
    sup.arm(green);
    sup.startRun();
    // The link dropped between the last state and this command; its loss not yet reported.
    robot.sendTwist = () => {
      throw new LinkDownError('robot link is down: the arm is stopped by its watchdog');
    };
    expect(sup.command(0.05, 0)).toBe(false);
    expect(sup.state).toBe('stopped');
    expect(sup.stopReason).toEqual({
      code: 'robot-link-lost',
      message: 'robot link is down: the arm is stopped by its watchdog',
    });
    expect(decisions.at(-1)).toMatchObject({ kind: 'stop', message: expect.stringMatching(/link/i) });
  });

  it('stops on a command over the speed limit without sending it', () => {
    const { sup, robot } = setup();
    sup.arm(green);
    sup.startRun();
    expect(sup.command(0.09, 0.09)).toBe(false);
    expect(robot.wire).toEqual([{ kind: 'stop' }]);
    expect(sup.stopReason?.code).toBe('speed-limit');
  });

  it('never sends a command that would leave the workspace (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -0.6, max: 0.6, noNaN: true }),
        fc.double({ min: -0.5, max: 0.5, noNaN: true }),
        fc.double({ min: -0.1, max: 0.1, noNaN: true }),
        fc.double({ min: -0.1, max: 0.1, noNaN: true }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        (x, y, vx, vy, z) => {
          const { sup, robot } = setup();
          robot.latest = readyRobotState({ tcpPose: [x, y, z, 0, 0, 0] });
          sup.arm(green);
          sup.startRun();
          const sent = sup.command(vx, vy);
          const twists = robot.wire.filter((w) => w.kind === 'twist');
          if (!sent) {
            expect(twists).toHaveLength(0);
            return;
          }
          expect(Math.hypot(vx, vy)).toBeLessThanOrEqual(0.1 + 1e-12);
          expect(z).toBeGreaterThanOrEqual(workspace.zMin);
          expect(z).toBeLessThanOrEqual(workspace.zMax);
          const inside = (px: number, py: number): boolean =>
            Math.abs(px) <= workspace.halfX && Math.abs(py) <= workspace.halfY;
          // Either it stays inside, or it started outside and moves back towards the workspace.
          if (inside(x, y)) expect(inside(x + vx * 0.2, y + vy * 0.2)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('stops when motion capture goes stale for more than 100 ms', () => {
    const { sup, robot, advance } = setup();
    sup.arm(green);
    sup.startRun();
    sup.updateMocap(poses());
    advance(0.09);
    sup.tick();
    expect(sup.state).toBe('running');
    advance(0.015);
    sup.tick();
    expect(sup.state).toBe('stopped');
    expect(sup.stopReason?.code).toBe('mocap-stale');
    expect(robot.wire.at(-1)).toEqual({ kind: 'stop' });
  });

  it('stops at once when a bound body is untracked', () => {
    const { sup } = setup();
    sup.arm(green);
    sup.startRun();
    sup.updateMocap(poses('untracked'));
    expect(sup.stopReason).toEqual({ code: 'mocap-untracked', body: 'object' });
  });

  it.each([
    ['protective-stop', { safetyMode: 'PROTECTIVE_STOP' }],
    ['emergency-stop', { safetyStatus: { ...readyRobotState().safetyStatus, emergencyStopped: true } }],
    ['program-stopped', { runtimeState: 'STOPPED' }],
    ['safety-fault', { safetyMode: 'VIOLATION' }],
  ] as const)('stops on %s with that reason', (code, overrides) => {
    const { sup } = setup();
    sup.arm(green);
    sup.startRun();
    sup.updateRobot(readyRobotState(overrides as Partial<RobotState>));
    expect(sup.stopReason?.code).toBe(code);
  });

  it('stops when the command stream stalls while the arm moves, not while it holds still', () => {
    const { sup, advance } = setup();
    sup.arm(green);
    sup.startRun();
    sup.hold();
    advance(0.5); // planning between controls: holding still is fine
    sup.updateMocap(poses());
    sup.tick();
    expect(sup.state).toBe('running');
    sup.command(0.05, 0);
    advance(0.09);
    sup.updateMocap(poses());
    sup.tick();
    expect(sup.state).toBe('running');
    advance(0.02);
    sup.updateMocap(poses());
    sup.tick();
    expect(sup.stopReason?.code).toBe('loop-stalled');
  });

  it('recovers from a protective stop only with confirmation, after 5 s, twist zeroed first, program once the arm runs', async () => {
    const { sup, advance } = setup();
    sup.arm(green);
    sup.startRun();
    sup.updateRobot(readyRobotState({ safetyMode: 'PROTECTIVE_STOP' }));
    const steps: string[] = [];
    const ports = {
      unlockProtectiveStop: async () => void steps.push('unlock'),
      waitForRunning: async () => void steps.push('running'),
      zeroTwist: () => void steps.push('zero'),
      resendProgram: async () => void steps.push('program'),
      waitForProgram: async () => void steps.push('playing'),
    };
    await expect(recoverFromProtectiveStop(sup, ports, false)).rejects.toThrow(/confirm/);
    const slept: number[] = [];
    advance(1);
    let now = sup.stoppedAt! + 1;
    await recoverFromProtectiveStop(sup, ports, true, {
      now: () => now,
      sleep: async (seconds) => {
        slept.push(seconds);
        now += seconds;
      },
    });
    expect(slept).toEqual([4]);
    expect(steps).toEqual(['zero', 'unlock', 'running', 'program', 'playing']);
    expect(sup.state).toBe('disarmed');
  });
});

describe('pre-flight checks', () => {
  const inputs = (): PreflightInputs => ({
    mocap: poses(),
    robot: readyRobotState(),
    robotLinkUp: true,
    gripper: { held: true, detail: 'OBJ 2' },
    calibration: { residual: 0.001 },
    scene,
    maxCalibrationResidual: 0.003,
    setup: labSetupFor(scene),
  });
  it('are all green for a ready setup', () => {
    const r = preflight(inputs());
    expect(r.ok).toBe(true);
    expect(r.checks.map((c) => c.id)).toEqual([
      'mocap',
      'robot-mode',
      'safety-mode',
      'program',
      'pusher-held',
      'calibration',
      'scene',
      'speed-slider',
      'reach',
      'force-limit',
    ]);
  });
  it.each([
    ['mocap', (i: PreflightInputs) => (i.mocap = poses('stale')), /object: stale/],
    ['robot-mode', (i: PreflightInputs) => (i.robot = readyRobotState({ robotMode: 'IDLE' })), /IDLE/],
    [
      'safety-mode',
      (i: PreflightInputs) => (i.robot = readyRobotState({ safetyMode: 'REDUCED' })),
      /REDUCED/,
    ],
    ['program', (i: PreflightInputs) => (i.robot = readyRobotState({ runtimeState: 'STOPPED' })), /STOPPED/],
    [
      'pusher-held',
      (i: PreflightInputs) => (i.gripper = { held: false, detail: 'OBJ 3: closed on nothing' }),
      /OBJ 3/,
    ],
    ['calibration', (i: PreflightInputs) => (i.calibration = { residual: 0.01 }), /10\.0 mm/],
    [
      'scene',
      (i: PreflightInputs) => (i.mocap!.sliders[0]!.pose = { x: 2, y: 0, theta: 0 }),
      /off the table/,
    ],
    ['speed-slider', (i: PreflightInputs) => (i.robot = readyRobotState({ speedScaling: 0.5 })), /50 %/],
    ['reach', (i: PreflightInputs) => (i.setup = labSetupFor(scene, [0, -0.75, 0])), /past 800 mm/],
    [
      'force-limit',
      (i: PreflightInputs) =>
        (i.scene = { ...scene, sliders: scene.sliders.map((s) => ({ ...s, mass: 50, friction: 5 })) }),
      /over 75 N/,
    ],
  ])('turn %s red with its reason', (id, mutate, reason) => {
    const i = inputs();
    mutate(i);
    const r = preflight(i);
    expect(r.ok).toBe(false);
    const failed = r.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.id)).toEqual([id]);
    expect(failed[0]!.reason).toMatch(reason);
  });
  it('turn every robot check red on a dropped link, however good its last state was', () => {
    const r = preflight({ ...inputs(), robotLinkUp: false });
    const failed = r.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.id)).toEqual(['robot-mode', 'safety-mode', 'program', 'speed-slider']);
    for (const c of failed) expect(c.reason).toBe('robot link down');
  });
});
