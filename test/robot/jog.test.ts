/**
 * The calibration wizard's jog against the virtual UR controller on loopback, through the real
 * connection and control program: the tool moves the asked step along the asked base axis and
 * stops; a step too long, a robot in a protective stop or an aborted jog are refused or stopped.
 * A turn swings the TCP round the pusher's tip, which stays put.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JogRefused, jogRefusal, jogTool, MAX_JOG, TURN_RATE, turnTool } from '../../src-main/robot/jog';
import { mulVec, rotationFromVector } from '../../src-main/common/rotation';
import { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';
import { Ur5Connection } from '../../src-main/robot/ur5-connection';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function connected(): Promise<{ ur: VirtualUr; robot: Ur5Connection }> {
  const ur = await VirtualUr.start({
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 },
    frequency: 500,
  });
  cleanup.push(() => ur.stop());
  const robot = await Ur5Connection.connect({
    host: '127.0.0.1',
    rtdePort: ur.ports.rtde,
    scriptPort: ur.ports.secondary,
  });
  cleanup.push(() => robot.disconnect());
  await robot.waitForState((s) => s.program.state === 'ARMED');
  return { ur, robot };
}

describe('jogTool (virtual UR on loopback)', () => {
  it('moves the tool the asked step along the asked axis and leaves it stopped', async () => {
    const { ur, robot } = await connected();
    const [x0, y0, z0] = robot.latest!.tcpPose;
    const moved = await jogTool(robot, 0, -0.01);
    expect(moved).toBeGreaterThan(0.009);
    expect(moved).toBeLessThan(0.0115);
    const [x1, y1, z1] = robot.latest!.tcpPose;
    expect(y1! - y0!).toBeCloseTo(-moved, 4);
    expect(Math.abs(x1! - x0!)).toBeLessThan(0.0005);
    expect(Math.abs(z1! - z0!)).toBeLessThan(0.0005);
    expect(ur.controller.arm.speed).toBe(0);
    expect(robot.latest!.program.state).toBe('ARMED');
  });

  it('refuses a step longer than the limit, and a robot in a protective stop', async () => {
    const { ur, robot } = await connected();
    await expect(jogTool(robot, MAX_JOG, 0.01)).rejects.toThrow(/at most 50 mm/);
    ur.controller.injectProtectiveStop();
    await robot.waitForState((s) => s.safetyMode !== 'NORMAL');
    expect(jogRefusal(robot)).toMatch(/safety mode is PROTECTIVE_STOP/);
    await expect(jogTool(robot, 0.01, 0)).rejects.toBeInstanceOf(JogRefused);
  });

  it('stops the arm at once when aborted', async () => {
    const { ur, robot } = await connected();
    const x0 = robot.latest!.tcpPose[0]!;
    const control = new AbortController();
    const jog = jogTool(robot, 0.04, 0, { signal: control.signal });
    await robot.waitForState((s) => s.tcpPose[0]! - x0 > 0.002);
    control.abort();
    await expect(jog).rejects.toThrow(/aborted/);
    await robot.waitForState((s) => s.tcpSpeed[0] === 0);
    expect(robot.latest!.tcpPose[0]! - x0).toBeLessThan(0.02);
    expect(ur.controller.arm.speed).toBe(0);
  });
});

describe('turnTool (virtual UR on loopback)', () => {
  it('turns the tool the asked angle about the vertical through the tip, which stays put', async () => {
    const { ur, robot } = await connected();
    const offset = [0, 0, 0.15];
    const tip = (pose: readonly number[]): number[] => {
      const arm = mulVec(rotationFromVector(pose.slice(3)), offset);
      return [pose[0]! + arm[0]!, pose[1]! + arm[1]!];
    };
    const before = tip(robot.latest!.tcpPose);
    const turned = await turnTool(robot, -0.3, offset);
    // Commanding stops a ramp-down short of the angle (TURN_RATE^2 / 2 at 1 rad/s^2: 0.06 rad);
    // the controller's stop decelerates faster, so the turn ends short by at most that.
    expect(turned).toBeLessThan(-0.3 + TURN_RATE ** 2 / 2);
    expect(turned).toBeGreaterThan(-0.31);
    const after = tip(robot.latest!.tcpPose);
    expect(Math.hypot(after[0]! - before[0]!, after[1]! - before[1]!)).toBeLessThan(0.002);
    expect(ur.controller.arm.speed).toBe(0);
    expect(ur.controller.arm.yawRate).toBe(0);
    await expect(turnTool(robot, Math.PI, offset)).rejects.toThrow(/at most 90 deg/);
  });
});
