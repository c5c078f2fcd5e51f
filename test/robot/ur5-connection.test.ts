import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';
import { DashboardClient, DashboardRefusedError } from '../../src-main/robot/dashboard';
import { ProgramState, REGISTER_NUMBERS } from '../../src-main/robot/registers';
import { ProgramNotRunningError, Ur5Connection } from '../../src-main/robot/ur5-connection';
import { recoverRobotFromProtectiveStop, robotRecoveryPorts } from '../../src-main/safety/recovery';

const EPHEMERAL = { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 };
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function lab(unlockDelay = 5): Promise<VirtualUr> {
  const ur = await VirtualUr.start({ ports: EPHEMERAL, frequency: 500, unlockDelay });
  cleanup.push(() => ur.stop());
  return ur;
}

async function connect(ur: VirtualUr): Promise<Ur5Connection> {
  const c = await Ur5Connection.connect({
    host: '127.0.0.1',
    rtdePort: ur.ports.rtde,
    scriptPort: ur.ports.secondary,
    reconnectDelay: { initial: 0.05, max: 0.2 },
  });
  cleanup.push(() => c.disconnect());
  await c.waitForState((s) => s.program.state === 'ARMED');
  return c;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Commands a twist every 8 ms until stopped; the handle stops it. */
function keepDriving(c: Ur5Connection, vx: number, vy: number): () => void {
  const t = setInterval(() => {
    if (c.linkUp) c.sendTwist(vx, vy, 1.5);
  }, 8);
  return () => clearInterval(t);
}

describe('Ur5Connection against the virtual controller', () => {
  it('connects, sends the program, moves on twists and stops on stop', async () => {
    const ur = await lab();
    const c = await connect(ur);
    expect(c.protocolVersion).toBe(2);
    expect(c.frequency).toBe(500);
    expect(c.latest!.robotMode).toBe('RUNNING');
    expect(c.latest!.safetyStatus.normal).toBe(true);
    expect(c.latest!.robotStatus.programRunning).toBe(true);
    const x0 = c.latest!.tcpPose[0]!;
    const halt = keepDriving(c, 0.05, -0.02);
    const moving = await c.waitForState((s) => Math.abs(s.tcpSpeed[0]! - 0.05) < 1e-9);
    expect(moving.program.state).toBe('MOVING');
    expect(moving.tcpSpeed[1]).toBeCloseTo(-0.02, 9);
    halt();
    c.stop(1.5);
    const still = await c.waitForState((s) => s.tcpSpeed[0] === 0 && s.program.state === 'ARMED');
    expect(still.tcpPose[0]!).toBeGreaterThan(x0);
    // Idle keep-alive stops keep it armed well past the watchdog timeout.
    await sleep(300);
    expect(c.latest!.program.state).toBe('ARMED');
    expect(ur.controller.arm.speed).toBe(0);
  });

  it('never writes a stop softer than the watchdog stop (issue 16)', async () => {
    const ur = await lab();
    const c = await connect(ur);
    const written = (): number => ur.controller.registers.inputDouble[REGISTER_NUMBERS.acceleration]!;
    for (const asked of [1e-6, -2, Number.NaN, 0]) {
      const seq = c.stop(asked)!;
      await c.waitForState((s) => s.program.ackSequence === seq);
      expect(written(), `stop(${asked})`).toBe(c.settings.stopAcceleration);
    }
    c.stop(2.5);
    await sleep(20);
    expect(written()).toBe(2.5);
  });

  it('refuses non-finite twists', async () => {
    const ur = await lab();
    const c = await connect(ur);
    expect(() => c.sendTwist(Number.NaN, 0, 1)).toThrow(RangeError);
    expect(() => c.sendTwist(0.01, 0, 0)).toThrow(RangeError);
  });

  it('killing the console process mid-motion stops the arm within the watchdog timeout', async () => {
    const ur = await lab();
    const child = spawn(
      process.execPath,
      [
        'bin/run-ts.mjs',
        'test/robot/fixtures/console-driver.ts',
        String(ur.ports.rtde),
        String(ur.ports.secondary),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    cleanup.push(() => void child.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('moving') && resolve());
      child.on('exit', (code) => reject(new Error(`driver exited early (${code})`)));
    });
    // Controller time of the last fresh command, and of the trip and the standstill after it.
    let lastSeq = ur.controller.registers.inputInt[REGISTER_NUMBERS.sequence];
    let lastCommandAt = ur.controller.time;
    let trippedAt: number | undefined;
    let stoppedAt: number | undefined;
    ur.onMotion((m) => {
      const seq = ur.controller.registers.inputInt[REGISTER_NUMBERS.sequence];
      if (seq !== lastSeq) {
        lastSeq = seq;
        lastCommandAt = m.time;
      }
      if (trippedAt === undefined && ur.controller.programState === ProgramState.TRIPPED) trippedAt = m.time;
      if (trippedAt !== undefined && stoppedAt === undefined && ur.controller.arm.speed === 0)
        stoppedAt = m.time;
    });
    child.kill('SIGKILL');
    while (stoppedAt === undefined) await sleep(20);
    const timeout = 0.1;
    const cycle = ur.controller.cycle;
    expect(trippedAt! - lastCommandAt).toBeLessThanOrEqual(timeout + 2 * cycle);
    // 0.08 m/s at the default 1.5 m/s^2 watchdog deceleration.
    expect(stoppedAt - trippedAt!).toBeLessThanOrEqual(0.08 / 1.5 + 2 * cycle);
  });

  it('a dropped link reconnects without motion', async () => {
    const ur = await lab();
    const c = await connect(ur);
    const lost: Error[] = [];
    c.on('linkLost', (e) => lost.push(e));
    const halt = keepDriving(c, 0.05, 0);
    await c.waitForState((s) => s.program.state === 'MOVING' && s.tcpSpeed[0]! > 0.04);
    const restored = new Promise<void>((r) => c.once('linkRestored', () => r()));
    ur.rtde.dropClients();
    halt();
    await restored;
    expect(lost).toHaveLength(1);
    await c.waitForState((s) => s.program.state === 'ARMED' && s.tcpSpeed[0] === 0, 3);
    // Nothing moves on its own after the reconnect.
    let maxSpeed = 0;
    const off = ur.onMotion(() => (maxSpeed = Math.max(maxSpeed, ur.controller.arm.speed)));
    await sleep(300);
    off();
    expect(maxSpeed).toBe(0);
    // And the link works again.
    const again = keepDriving(c, 0, 0.03);
    await c.waitForState((s) => Math.abs(s.tcpSpeed[1]! - 0.03) < 1e-9);
    again();
    c.stop();
  });

  it('a caller that pauses 0.5 s mid-push: the program stops the arm and keeps running, and the push resumes', async () => {
    const ur = await lab();
    const c = await connect(ur);
    const halt = keepDriving(c, 0.05, 0);
    await c.waitForState((s) => s.program.state === 'MOVING' && Math.abs(s.tcpSpeed[0]! - 0.05) < 1e-9);
    // The planner stalls: no twist for 0.5 s of controller time, longer than the RTDE watchdog's 0.3 s.
    halt();
    const pausedAt = c.latest!.timestamp;
    const later = await c.waitForState((s) => s.timestamp >= pausedAt + 0.5, 3);
    expect(later.tcpSpeed[0]).toBe(0);
    expect(later.runtimeState).toBe('PLAYING');
    // Re-armed by the keep-alive's stop: the next twist moves the arm again, no restart needed.
    expect(later.program.state).toBe('ARMED');
    const resume = keepDriving(c, 0.05, 0);
    await c.waitForState((s) => s.program.state === 'MOVING' && s.tcpSpeed[0]! > 0.01);
    resume();
    c.stop();
  });

  it('protective stop: unlock refused within the delay; recovery re-sends the program only once the arm runs', async () => {
    const ur = await lab(0.4);
    const c = await connect(ur);
    const dash = await DashboardClient.connect('127.0.0.1', ur.ports.dashboard);
    cleanup.push(() => dash.close());
    const halt = keepDriving(c, 0.05, 0);
    await c.waitForState((s) => s.program.state === 'MOVING');
    ur.controller.injectProtectiveStop();
    const stopped = await c.waitForState((s) => s.safetyStatus.protectiveStopped);
    halt();
    expect(stopped.safetyMode).toBe('PROTECTIVE_STOP');
    expect(await dash.safetyStatus()).toBe('PROTECTIVE_STOP');
    expect((await dash.programState()).state).toBe('PAUSED');
    const refused = await dash.unlockProtectiveStop().catch((e) => e);
    expect(refused).toBeInstanceOf(DashboardRefusedError);
    expect((refused as Error).message).toMatch(/Cannot unlock protective stop until/);
    await sleep(500);
    const events: string[] = [];
    ur.controller.on('event', (e) => events.push(e));
    await recoverRobotFromProtectiveStop('PROTECTIVE_STOP', robotRecoveryPorts(c, dash), true);
    // "Protective stop releasing" starts the release; the program goes only once it is done.
    expect(events).toEqual([
      'protective stop releasing',
      'protective stop released: robot running',
      'control program started',
    ]);
    expect(await dash.safetyStatus()).toBe('NORMAL');
    const rearmed = await c.waitForState((s) => s.program.state === 'ARMED' && s.runtimeState === 'PLAYING');
    expect(rearmed.tcpSpeed[0]).toBe(0);
  });

  it('a program sent on the unlock reply, before the arm runs again, is refused and said so', async () => {
    const ur = await lab(0);
    const c = await connect(ur);
    const dash = await DashboardClient.connect('127.0.0.1', ur.ports.dashboard);
    cleanup.push(() => dash.close());
    ur.controller.injectProtectiveStop();
    await c.waitForState((s) => s.safetyStatus.protectiveStopped);
    await dash.unlockProtectiveStop();
    expect(await dash.robotMode()).toBe('IDLE');
    const err = await c.sendProgram().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProgramNotRunningError);
    expect((err as Error).message).toMatch(/^control program not running after upload/);
    expect(c.uploadProblem).toMatch(/^control program not running after upload/);
  });
});
