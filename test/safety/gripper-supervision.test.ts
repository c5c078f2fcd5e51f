/**
 * A gripper scene under the supervisor: its turn (yaw rate), its footprint in the workspace and its
 * finger motions are checked, and the fingers are reached only through a running supervisor, never
 * by the run's plant or after a stop.
 */
import { describe, expect, it } from 'vitest';
import type { RobotState } from '../../src-main/robot/robot-state';
import { RobotPlant } from '../../src-main/run/robot-plant';
import {
  Supervisor,
  type Decision,
  type HandSupervision,
  type SupervisedRobot,
} from '../../src-main/safety/supervisor';
import { parallelGripper } from '#contract/end-effector/parallel-gripper';
import { footprintReach, workspaceFor } from '../../src-main/safety/workspace';
import { readyRobotState } from '../helpers/robot-state';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('wafr-clutter');
const g = scene.gripper!;

/** The robot at rest at `at` (s), its tool at `pose`: (x, y, height, yaw) directly. */
const robotState = (at: number, pose = [0, 0, 0.01, 0, 0, 0]): RobotState =>
  readyRobotState({ receivedAt: at, tcpPose: pose });

type Wire =
  | { kind: 'twist'; vx: number; vy: number; yawRate: number }
  | { kind: 'stop' }
  | { kind: 'fingers'; opening: number; speed: number };

/**
 * A supervisor of the clutter gripper on a fake robot and fake fingers that record what reaches
 * the wire. Tool pose: (x, y, height, yaw) directly, table frame = base frame.
 */
function gripperRun(o: { fingersRefuse?: boolean; pose?: number[] } = {}) {
  let t = 0;
  const wire: Wire[] = [];
  const robot: SupervisedRobot & { latest: RobotState | undefined } = {
    latest: robotState(0, o.pose),
    sendTwist: (vx, vy, _a, yaw) => wire.push({ kind: 'twist', vx, vy, yawRate: yaw?.rate ?? 0 }),
    stop: () => wire.push({ kind: 'stop' }),
  };
  const footprint = parallelGripper(g).outline;
  const hand: HandSupervision = {
    maxYawRate: 1,
    maxOpeningSpeed: 0.1,
    yawAcceleration: 0.5 / footprintReach(footprint),
    maxOpening: g.maxOpening,
    footprint,
    yawInTable: (p) => p[5]!,
    toolTwist: (vx, vy, yawRate) => ({ vx, vy, yawRate }),
    fingers: {
      opening: 0.14,
      move: async (opening, speed) => {
        wire.push({ kind: 'fingers', opening, speed });
        if (o.fingersRefuse) throw new Error('gripper answers "?" for SET: is an emergency stop active?');
      },
    },
  };
  const sup = new Supervisor({
    robot,
    frame: { pusherInTable: (p) => ({ x: p[0]!, y: p[1]!, z: p[2]! }), tableToBase: (vx, vy) => [vx, vy] },
    workspace: workspaceFor(scene.table, 0.03, [0, 0.02]),
    maxSpeed: 0.25,
    acceleration: 0.5,
    hand,
    now: () => t,
  });
  const decisions: Decision[] = [];
  sup.on('decision', (d) => decisions.push(d));
  return {
    sup,
    robot,
    wire,
    decisions,
    running(): void {
      sup.arm({ ok: true, checks: [] });
      sup.startRun();
    },
    advance(s: number): void {
      t += s;
      if (robot.latest) robot.latest = { ...robot.latest, receivedAt: t };
    },
  };
}

describe('the supervisor of a gripper scene', () => {
  it('sends finger motions only while the run is running, and none after a fault stops it', () => {
    const r = gripperRun();
    // Disarmed and armed-but-not-started: nothing reaches the gripper.
    expect(r.sup.commandFingers(-0.05, 1)).toBe(false);
    r.sup.arm({ ok: true, checks: [] });
    expect(r.sup.commandFingers(-0.05, 1)).toBe(false);
    expect(r.wire).toEqual([]);
    r.sup.startRun();
    // Running: one move towards the gap the control leads to, at its speed.
    expect(r.sup.commandFingers(-0.05, 1)).toBe(true);
    expect(r.wire).toEqual([{ kind: 'fingers', opening: expect.closeTo(0.09, 9), speed: 0.05 }]);
    expect(r.decisions.at(-1)).toMatchObject({
      kind: 'fingers',
      opening: expect.closeTo(0.09, 9),
      speed: 0.05,
    });
    // Targets stay within the stroke.
    r.sup.commandFingers(0.1, 1);
    expect(r.wire.at(-1)).toMatchObject({ opening: 0.14 });
    // A protective stop (fault injection): the arm is stopped and the fingers get nothing more.
    r.sup.updateRobot({ ...robotState(0), safetyMode: 'PROTECTIVE_STOP' });
    expect(r.sup.state).toBe('stopped');
    const before = r.wire.length;
    expect(r.sup.commandFingers(-0.05, 1)).toBe(false);
    expect(r.sup.command(0.01, 0, 0.1)).toBe(false);
    expect(r.wire.slice(before)).toEqual([]);
  });

  it('refuses a yaw rate above the limit, and any turn of a pusher', () => {
    const r = gripperRun();
    r.running();
    expect(r.sup.command(0.05, 0, 0.8)).toBe(true);
    expect(r.wire.at(-1)).toEqual({ kind: 'twist', vx: 0.05, vy: 0, yawRate: 0.8 });
    expect(r.sup.command(0.05, 0, -1.2)).toBe(false);
    expect(r.decisions.find((d) => d.kind === 'command-refused')).toMatchObject({
      reason: { code: 'yaw-rate-limit', rate: 1.2, limit: 1 },
      message: 'Commanded yaw rate 69 deg/s exceeds the limit 57 deg/s',
    });
    expect(r.wire.at(-1)).toEqual({ kind: 'stop' });

    // The same supervisor without a gripper (a pusher scene): any yaw rate is refused.
    const pusher = new Supervisor({
      robot: { latest: robotState(0), sendTwist: () => 1, stop: () => 1 },
      frame: { pusherInTable: (p) => ({ x: p[0]!, y: p[1]!, z: p[2]! }), tableToBase: (vx, vy) => [vx, vy] },
      workspace: workspaceFor(scene.table, 0.03, [0, 0.02]),
      maxSpeed: 0.1,
      acceleration: 0.5,
      now: () => 0,
    });
    pusher.arm({ ok: true, checks: [] });
    pusher.startRun();
    expect(pusher.command(0.01, 0, 0.1)).toBe(false);
    expect(pusher.stopReason).toEqual({ code: 'yaw-rate-limit', rate: 0.1, limit: 0 });
    expect(() => pusher.commandFingers(0.01, 1)).toThrow(/need a gripper scene/);
  });

  it('refuses finger and translation speeds above their limits before anything is sent', () => {
    const fingers = gripperRun();
    fingers.running();
    expect(fingers.sup.commandFingers(-0.15, 1)).toBe(false);
    expect(fingers.sup.stopReason).toEqual({ code: 'opening-speed-limit', speed: 0.15, limit: 0.1 });
    expect(fingers.wire).toEqual([{ kind: 'stop' }]);

    const speed = gripperRun();
    speed.running();
    expect(speed.sup.command(0.3, 0, 0)).toBe(false);
    expect(speed.sup.stopReason).toMatchObject({ code: 'speed-limit', limit: 0.25 });
    expect(speed.wire).toEqual([{ kind: 'stop' }]);
  });

  it("checks the gripper's whole footprint against the workspace, turning included", () => {
    // Workspace half x: 0.4 - 0.03 = 0.37. The palm's back corners are 0.105 m behind the grasp
    // centre (half the 90 mm fingers and the 60 mm palm): at x = -0.25 facing +x they are at
    // -0.355, inside.
    const inside = gripperRun({ pose: [-0.25, 0, 0.01, 0, 0, 0] });
    inside.running();
    expect(inside.sup.command(-0.05, 0, 0)).toBe(true); // palm to -0.365 within the lookahead
    // The grasp centre would stay well inside, but the palm's corners would leave.
    expect(inside.sup.command(-0.1, 0, 0)).toBe(false);
    expect(inside.sup.stopReason).toMatchObject({ code: 'workspace' });

    // Near a side edge (y half 0.27, the palm's corner at 0.265) turning one way keeps every
    // corner inside; turning the other swings the palm's back corner out.
    const side = gripperRun({ pose: [0, 0.18, 0.01, 0, 0, 0] });
    side.running();
    expect(side.sup.command(0, 0, 1)).toBe(true);
    expect(side.sup.command(0, 0, -1)).toBe(false);
    expect(side.sup.stopReason).toMatchObject({ code: 'workspace' });
  });

  it('stops the run when the gripper refuses a finger motion', async () => {
    const r = gripperRun({ fingersRefuse: true });
    r.running();
    expect(r.sup.commandFingers(-0.05, 1)).toBe(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(r.sup.stopReason).toEqual({
      code: 'gripper-fault',
      detail: 'gripper answers "?" for SET: is an emergency stop active?',
    });
  });

  it("is the plant's only way to the fingers: a 4-input control goes to the supervisor, once per control for the fingers", async () => {
    const r = gripperRun();
    r.running();
    const plant = new RobotPlant({
      supervisor: r.sup,
      estimate: () => ({ at: 0, poses: undefined, state: new Float64Array(20), missing: null }),
      commandPeriod: 0.01,
    });
    await plant.execute([0.02, 0, 0.5, -0.04], 0.3);
    const twists = r.wire.filter((w) => w.kind === 'twist');
    expect(twists.length).toBeGreaterThan(1);
    expect(twists.every((w) => w.kind === 'twist' && w.yawRate === 0.5 && w.vx === 0.02)).toBe(true);
    expect(r.wire.filter((w) => w.kind === 'fingers')).toEqual([
      { kind: 'fingers', opening: expect.closeTo(0.14 - 0.04 * 0.3, 9), speed: 0.04 },
    ]);
    // The plant holds the supervisor, the estimate and its pacing, and nothing of the gripper.
    expect(Object.keys((plant as unknown as { o: object }).o).sort()).toEqual([
      'commandPeriod',
      'estimate',
      'supervisor',
    ]);
    await expect(plant.execute([0.01, 0, 0], 0.01)).rejects.toThrow(/2 entries \(pusher\) or 4/);
  });
});
