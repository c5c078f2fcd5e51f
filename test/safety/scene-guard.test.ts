/**
 * The supervisor's scene limits, calibration agreement and input checks, on a fake robot and a
 * fake clock: obstacles with a clearance on the command lookahead, objects touching obstacles or
 * leaving the table, motion capture and robot disagreeing on the pusher, NaN inputs, and a command
 * that judges the age of its inputs itself.
 */
import { describe, expect, it } from 'vitest';
import type { BodyEstimate, PlanarPoses } from '../../src-main/mocap/scene-binding';
import type { RobotState } from '../../src-main/robot/robot-state';
import { sceneGuardFor, segmentGap, shapeGap } from '../../src-main/safety/scene-guard';
import { describeStop } from '../../src-main/safety/stop-reasons';
import { Supervisor, type SupervisedRobot } from '../../src-main/safety/supervisor';
import { workspaceFor } from '../../src-main/safety/workspace';
import { referenceScene } from '../helpers/scenes';

// isrr-obstacle: a 1 x 0.8 m table, the pusher (r 14.5 mm), a cylinder object (r 51.15 mm) and a
// cylinder obstacle of radius 40 mm at the origin.
const scene = referenceScene('isrr-obstacle');
const guard = sceneGuardFor(scene);
const OBJECT_R = 0.05115;
const OBSTACLE_R = 0.04;
const PUSHER_R = 0.0145;

function robotState(x: number, y: number, at: number): RobotState {
  return {
    receivedAt: at,
    tcpPose: [x, y, 0.07, 0, 0, 0],
    tcpSpeed: [0, 0, 0, 0, 0, 0],
    robotMode: 'RUNNING',
    safetyMode: 'NORMAL',
    runtimeState: 'PLAYING',
    safetyStatus: {},
    robotStatus: {
      powerOn: true,
      programRunning: true,
      teachButtonPressed: false,
      powerButtonPressed: false,
    },
    program: { ackSequence: 0, state: 'RUNNING', heartbeat: 0 },
  } as unknown as RobotState;
}

class FakeRobot implements SupervisedRobot {
  latest: RobotState | undefined;
  wire: string[] = [];
  sendTwist(): number {
    this.wire.push('twist');
    return this.wire.length;
  }
  stop(): number {
    this.wire.push('stop');
    return this.wire.length;
  }
}

function body(name: string, x: number, y: number): BodyEstimate {
  return {
    rigidBody: name,
    raw: { position: [x, y, 0], orientation: [0, 0, 0, 1] },
    repeated: null,
    pose: { x, y, theta: 0 },
    z: 0,
    poseTime: 0,
    tracked: true,
    age: 0,
    stale: false,
    status: 'ok',
  };
}

let frameNumber = 0;
function poses(pusher: [number, number], object: [number, number]): PlanarPoses {
  return {
    frameNumber: ++frameNumber,
    pusher: body('pusher', ...pusher),
    sliders: [{ ...body('object', ...object), id: 'object' }],
    ok: true,
  };
}

/** A running supervisor with the pusher at (x, y) (robot and motion capture agree). */
function running(x: number, y: number, options: { guard?: boolean } = {}) {
  let t = 0;
  const robot = new FakeRobot();
  robot.latest = robotState(x, y, 0);
  const sup = new Supervisor({
    robot,
    frame: { pusherInTable: (p) => ({ x: p[0]!, y: p[1]!, z: p[2]! }), tableToBase: (vx, vy) => [vx, vy] },
    workspace: workspaceFor(scene.table, 0.03, [0.03, 0.15]),
    maxSpeed: 0.1,
    acceleration: 0.5,
    ...(options.guard === false ? {} : { guard }),
    now: () => t,
  });
  sup.arm({ ok: true, checks: [] });
  sup.startRun();
  return {
    robot,
    sup,
    /** Moves the clock on; the robot state keeps arriving (at the pusher's place, or `at`). */
    advance(seconds: number, at: [number, number] = [robot.latest!.tcpPose[0]!, robot.latest!.tcpPose[1]!]) {
      t += seconds;
      robot.latest = robotState(at[0], at[1], t);
    },
  };
}

describe('scene guard geometry', () => {
  it('measures gaps between discs and rectangles, negative when they overlap', () => {
    const disc = (x: number, r: number) => ({
      shape: { kind: 'disc', radius: r } as const,
      x,
      y: 0,
      theta: 0,
    });
    const rect = (x: number, theta = 0) => ({
      shape: { kind: 'rect', hx: 0.01, hy: 0.1 } as const,
      x,
      y: 0,
      theta,
    });
    expect(shapeGap(disc(0.1, 0.05), disc(0, 0.04))).toBeCloseTo(0.01, 12);
    expect(shapeGap(disc(0.06, 0.05), disc(0, 0.04))).toBeCloseTo(-0.03, 12);
    expect(shapeGap(disc(0.07, 0.05), rect(0))).toBeCloseTo(0.01, 12);
    expect(shapeGap(rect(0.03), rect(0))).toBeCloseTo(0.01, 12);
    expect(shapeGap(rect(0.015), rect(0))).toBeCloseTo(-0.005, 12);
    // Turned a quarter: 0.1 m along x each side now.
    expect(shapeGap(rect(0.13, Math.PI / 2), rect(0))).toBeCloseTo(0.02, 9);
    // A segment that passes through a rectangle touches it, whichever end is where.
    expect(segmentGap(rect(0), { x: -0.05, y: 0 }, { x: 0.05, y: 0 })).toBe(0);
    expect(segmentGap(disc(0, 0.04), { x: -0.1, y: 0.05 }, { x: 0.1, y: 0.05 })).toBeCloseTo(0.01, 12);
  });
});

describe('the supervisor guards the scene', () => {
  it('refuses a command whose lookahead takes the pusher within the clearance of an obstacle', () => {
    // Pusher 20 mm from the obstacle's surface; 0.1 m/s for the 0.2 s lookahead covers 20 mm.
    const x = -(OBSTACLE_R + PUSHER_R + 0.02);
    const { sup, robot } = running(x, 0.3);
    sup.updateMocap(poses([x, 0.3], [0.3, 0.3]));
    robot.latest = robotState(x, 0, 0);
    expect(sup.command(0.1, 0)).toBe(false);
    expect(robot.wire).toEqual(['stop']);
    expect(sup.stopReason).toMatchObject({ code: 'obstacle-clearance', obstacle: 'obstacle' });
    expect(describeStop(sup.stopReason!)).toMatch(
      /^Command refused: it would take the tool within 5 mm of obstacle/,
    );
  });

  it('lets a pusher within the clearance move away, and past an obstacle at a distance', () => {
    const x = -(OBSTACLE_R + PUSHER_R + 0.002);
    const { sup, robot } = running(x, 0);
    sup.updateMocap(poses([x, 0], [0.3, 0.3]));
    expect(sup.command(-0.05, 0)).toBe(true);
    robot.latest = robotState(-0.2, 0.1, 0);
    expect(sup.command(0.1, 0)).toBe(true);
    expect(robot.wire).toEqual(['twist', 'twist']);
  });

  it('without a guard (the old supervisor) the same command goes out', () => {
    const x = -(OBSTACLE_R + PUSHER_R + 0.02);
    const { sup, robot } = running(x, 0, { guard: false });
    sup.updateMocap(poses([x, 0], [0.3, 0.3]));
    expect(sup.command(0.1, 0)).toBe(true);
    expect(robot.wire).toEqual(['twist']);
  });

  it('stops on the frame that shows an object touching an obstacle, before anything else happens', () => {
    const { sup, robot } = running(-0.3, 0);
    sup.updateMocap(poses([-0.3, 0], [-0.2, 0]));
    expect(sup.command(0.05, 0)).toBe(true);
    // The object 1 mm into the obstacle.
    sup.updateMocap(poses([-0.16, 0], [-(OBSTACLE_R + OBJECT_R - 0.001), 0]));
    expect(robot.wire).toEqual(['twist', 'stop']);
    expect(sup.stopReason).toMatchObject({ code: 'obstacle-contact', body: 'object', obstacle: 'obstacle' });
    expect((sup.stopReason as { gap: number }).gap).toBeCloseTo(-0.001, 9);
    expect(describeStop(sup.stopReason!)).toBe('object touching obstacle (1.0 mm deep)');
  });

  it('stops a pushed object short of an obstacle by the distance the arm needs to stop', () => {
    // Pushed at 0.1 m/s straight at the obstacle: 0.1 * (1/120 + 0.008) + 0.1^2 / 3 = 4.97 mm.
    const margin = 0.1 * (1 / 120 + 0.008) + 0.01 / 3;
    const objectAt = (gap: number): number => -(OBSTACLE_R + OBJECT_R + gap);
    const pusherAt = (gap: number): number => objectAt(gap) - OBJECT_R - PUSHER_R;
    const { sup, robot, advance } = running(pusherAt(0.02), 0);
    sup.updateMocap(poses([pusherAt(0.02), 0], [objectAt(0.02), 0]));
    expect(sup.command(0.1, 0)).toBe(true);
    advance(0.008, [pusherAt(margin + 0.0005), 0]);
    sup.updateMocap(poses([pusherAt(margin + 0.0005), 0], [objectAt(margin + 0.0005), 0]));
    expect(sup.state).toBe('running');
    advance(0.008, [pusherAt(margin - 0.0005), 0]);
    sup.updateMocap(poses([pusherAt(margin - 0.0005), 0], [objectAt(margin - 0.0005), 0]));
    expect(robot.wire).toEqual(['twist', 'stop']);
    expect(sup.stopReason).toMatchObject({ code: 'obstacle-contact', body: 'object' });
    expect(describeStop(sup.stopReason!)).toMatch(
      /^object pushed towards obstacle, 4\.5 mm away: closer than the arm can stop$/,
    );
  });

  it('does not stop an object pushed along an obstacle closer than the stopping distance', () => {
    // Beside the obstacle, 2 mm from it, pushed along its tangent at 0.1 m/s: no approach.
    const y = OBSTACLE_R + OBJECT_R + 0.002;
    const pusher: [number, number] = [-OBJECT_R - PUSHER_R, y];
    const { sup, robot } = running(...pusher);
    sup.updateMocap(poses(pusher, [0, y]));
    expect(sup.command(0.1, 0)).toBe(true);
    sup.updateMocap(poses(pusher, [0, y]));
    expect(sup.state).toBe('running');
    expect(robot.wire).toEqual(['twist']);
  });

  it('stops when an object leaves the table', () => {
    const { sup, robot } = running(0.3, 0);
    sup.updateMocap(poses([0.3, 0], [0.45, 0]));
    expect(robot.wire).toEqual([]);
    sup.updateMocap(poses([0.3, 0], [0.502, 0]));
    expect(robot.wire).toEqual(['stop']);
    expect(sup.stopReason).toMatchObject({ code: 'off-table', body: 'object' });
    expect(describeStop(sup.stopReason!)).toBe('object leaving the table (2.0 mm past the edge)');
  });
});

describe('calibration agreement while running', () => {
  it('stops naming the drift once motion capture and the robot disagree on three frames in a row', () => {
    const { sup, robot, advance } = running(-0.3, 0);
    for (let i = 0; i < 2; i++) {
      advance(0.008);
      sup.updateMocap(poses([-0.3 + 0.008, 0], [0.3, 0.3]));
    }
    // One frame back in agreement resets the count.
    advance(0.008);
    sup.updateMocap(poses([-0.3, 0], [0.3, 0.3]));
    for (let i = 0; i < 2; i++) {
      advance(0.008);
      sup.updateMocap(poses([-0.3 + 0.008, 0], [0.3, 0.3]));
    }
    expect(sup.state).toBe('running');
    advance(0.008);
    sup.updateMocap(poses([-0.3 + 0.008, 0], [0.3, 0.3]));
    expect(robot.wire).toEqual(['stop']);
    expect(sup.stopReason).toMatchObject({ code: 'calibration-drift', limit: 0.005 });
    expect(describeStop(sup.stopReason!)).toBe(
      'Calibration drift: motion capture and the robot place the pusher 8.0 mm apart (limit 5.0 mm)',
    );
  });
});

describe('non-finite and old inputs', () => {
  it('stops on a robot state with a NaN pose, and refuses to command from one', () => {
    const a = running(-0.3, 0);
    a.sup.updateMocap(poses([-0.3, 0], [0.3, 0.3]));
    a.sup.updateRobot({ ...robotState(NaN, 0, 0) });
    expect(a.robot.wire).toEqual(['stop']);
    expect(a.sup.stopReason).toMatchObject({ code: 'non-finite', source: 'robot state' });

    // The state arrives NaN and the command comes before any update: the command judges it.
    const b = running(-0.3, 0);
    b.sup.updateMocap(poses([-0.3, 0], [0.3, 0.3]));
    b.robot.latest = robotState(-0.3, NaN, 0);
    expect(b.sup.command(0.01, 0)).toBe(false);
    expect(b.robot.wire).toEqual(['stop']);
    expect(b.sup.stopReason?.code).toBe('non-finite');
  });

  it('stops on a motion-capture pose that is not a number', () => {
    const { sup, robot } = running(-0.3, 0);
    sup.updateMocap(poses([-0.3, 0], [NaN, 0.3]));
    expect(robot.wire).toEqual(['stop']);
    expect(sup.stopReason).toMatchObject({ code: 'non-finite', source: 'motion-capture pose' });
  });

  it('refuses a command on motion capture older than the limit, without waiting for the watchdog tick', () => {
    const { sup, robot, advance } = running(-0.3, 0);
    sup.updateMocap(poses([-0.3, 0], [0.3, 0.3]));
    advance(0.12);
    // No tick ran: the command itself finds the last good frame 120 ms old.
    expect(sup.command(0.01, 0)).toBe(false);
    expect(robot.wire).toEqual(['stop']);
    expect(sup.stopReason).toMatchObject({ code: 'mocap-stale' });
  });

  it('refuses a command on a robot state older than the limit, without waiting for the tick', () => {
    const { sup, robot, advance } = running(-0.3, 0);
    advance(0.05);
    sup.updateMocap(poses([-0.3, 0], [0.3, 0.3]));
    robot.latest = { ...robot.latest!, receivedAt: -0.1 };
    expect(sup.command(0.01, 0)).toBe(false);
    expect(sup.stopReason).toMatchObject({ code: 'robot-state-stale' });
  });
});
