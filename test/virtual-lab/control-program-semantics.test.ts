/**
 * The control program's semantics, cycle by cycle on the native runner (deterministic: no sockets,
 * no wall clock), plus the rendered URScript it mirrors.
 */
import { describe, expect, it } from 'vitest';
import { STOP_YAW_DECELERATION } from '#contract/safety-limits';
import { VirtualController } from '../../src-main/virtual-lab/virtual-ur/controller';
import {
  controlProgramSettingsSchema,
  parseControlProgram,
  renderControlProgram,
} from '../../src-main/robot/control-program';
import { CommandCode, ProgramState, REGISTER_NUMBERS } from '../../src-main/robot/registers';

const R = REGISTER_NUMBERS;

function controller(settings: Record<string, number> = {}): VirtualController {
  const c = new VirtualController({ frequency: 500 });
  expect(c.loadScript(renderControlProgram(settings))).toBe('started');
  return c;
}

let seq = 100;
function command(c: VirtualController, code: number, vx: number, vy: number, acc = 1.5, fresh = true): void {
  if (fresh) seq += 1;
  c.registers.inputInt[R.sequence] = seq;
  c.registers.inputInt[R.command] = code;
  c.registers.inputDouble[R.vx] = vx;
  c.registers.inputDouble[R.vy] = vy;
  c.registers.inputDouble[R.acceleration] = acc;
  // No turn, at the yaw deceleration the console sends with it (ur5-connection.ts NO_TURN).
  c.registers.inputDouble[R.yawRate] = 0;
  c.registers.inputDouble[R.yawAcceleration] = STOP_YAW_DECELERATION;
  c.noteInputWrite(`input_int_register_${R.sequence}`);
}

function ticks(c: VirtualController, n: number): void {
  for (let i = 0; i < n; i++) c.tick();
}

/** Commands every cycle for `n` cycles, as a console loop at the controller rate would. */
function drive(c: VirtualController, vx: number, vy: number, n: number): void {
  for (let i = 0; i < n; i++) {
    command(c, CommandCode.SPEED, vx, vy);
    c.tick();
  }
}

describe('control program', () => {
  it('starts waiting for a re-arm and ignores motion until a fresh zero command', () => {
    const c = controller();
    ticks(c, 5);
    expect(c.programState).toBe(ProgramState.WAIT_REARM);
    drive(c, 0.05, 0, 20);
    expect(c.programState).toBe(ProgramState.WAIT_REARM);
    expect(c.arm.speed).toBe(0);
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    expect(c.programState).toBe(ProgramState.ARMED);
    drive(c, 0.05, 0, 100);
    expect(c.programState).toBe(ProgramState.MOVING);
    expect(c.arm.velocity[0]).toBeCloseTo(0.05, 9);
    expect(c.registers.outputInt[R.ackSequence]).toBe(seq);
  });

  it('does not take the command already in the registers when it starts', () => {
    const c = new VirtualController({ frequency: 500 });
    command(c, CommandCode.SPEED, 0.1, 0); // left over from an earlier session
    c.loadScript(renderControlProgram());
    ticks(c, 50);
    expect(c.arm.speed).toBe(0);
    expect(c.programState).toBe(ProgramState.WAIT_REARM);
  });

  it('ramps speed under the acceleration limit up to maxSpeed', () => {
    const c = controller({ maxSpeed: 0.1 });
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    command(c, CommandCode.SPEED, 0.06, 0.08, 0.5);
    c.tick();
    // One 2 ms cycle at 0.5 m/s^2 changes the speed by 1 mm/s.
    expect(c.arm.speed).toBeCloseTo(0.001, 9);
    for (let i = 0; i < 200; i++) {
      command(c, CommandCode.SPEED, 0.06, 0.08, 0.5);
      c.tick();
    }
    expect(c.arm.velocity[0]).toBeCloseTo(0.06, 9);
    expect(c.arm.velocity[1]).toBeCloseTo(0.08, 9);
  });

  it.each([
    ['a speed over maxSpeed', 0.3, 0.4, 0.5, 0],
    ['a NaN velocity', Number.NaN, 0, 0.5, 0],
    ['an infinite velocity', Number.POSITIVE_INFINITY, 0, 0.5, 0],
    ['a NaN acceleration', 0.05, 0, Number.NaN, 0],
    ['an acceleration over the cap', 0.05, 0, 10, 0],
    ['a zero acceleration', 0.05, 0, 0, 0],
    ['a yaw rate over the cap', 0, 0, 0.5, 10],
    ['a NaN yaw rate', 0, 0, 0.5, Number.NaN],
  ])('trips and stops at the stop deceleration on %s', (_what, vx, vy, acc, wz) => {
    const c = controller({ maxSpeed: 0.1 });
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    drive(c, 0.05, 0, 100);
    expect(c.arm.velocity[0]).toBeCloseTo(0.05, 9);
    command(c, CommandCode.SPEED, vx, vy, acc);
    c.registers.inputDouble[R.yawRate] = wz;
    c.tick();
    expect(c.programState).toBe(ProgramState.TRIPPED);
    expect(0.05 - c.arm.speed).toBeCloseTo(1.5 / 500, 9);
    // The same command again is no re-arm, and nothing moves until a fresh zero command.
    command(c, CommandCode.SPEED, vx, vy, acc);
    ticks(c, 100);
    expect(c.arm.speed).toBe(0);
    expect(c.runtime).toBe('PLAYING');
  });

  it('never stops more gently than the stop deceleration, whatever the stop command asks', () => {
    for (const asked of [0.01, Number.NaN, 100]) {
      const c = controller();
      command(c, CommandCode.STOP, 0, 0);
      c.tick();
      drive(c, 0.1, 0, 200);
      command(c, CommandCode.STOP, 0, 0, asked);
      c.tick();
      expect(0.1 - c.arm.speed, `stop asking ${asked}`).toBeCloseTo(1.5 / 500, 9);
    }
    const c = controller();
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    drive(c, 0.1, 0, 200);
    command(c, CommandCode.STOP, 0, 0, 2.5);
    c.tick();
    expect(0.1 - c.arm.speed, 'a harder stop within the cap').toBeCloseTo(2.5 / 500, 9);
  });

  it('the watchdog stops the arm when commands stop and waits for a re-arm', () => {
    const timeout = 0.05;
    const c = controller({ watchdogTimeout: timeout, stopAcceleration: 2 });
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    drive(c, 0.1, 0, 250);
    expect(c.arm.velocity[0]).toBeCloseTo(0.1, 9);
    // Commands stop. Within the timeout the last command stands; after it the arm decelerates.
    let cycles = 0;
    while (c.programState !== ProgramState.TRIPPED) {
      c.tick();
      cycles += 1;
      expect(cycles).toBeLessThan(1000);
    }
    expect(cycles * c.cycle).toBeGreaterThanOrEqual(timeout - c.cycle / 2);
    expect(cycles * c.cycle).toBeLessThanOrEqual(timeout + 2 * c.cycle);
    // 0.1 m/s at 2 m/s^2: at rest within 50 ms.
    ticks(c, 26);
    expect(c.arm.speed).toBe(0);
  });

  it('never resumes with an old command after a trip', () => {
    const c = controller({ watchdogTimeout: 0.02 });
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    drive(c, 0.05, 0, 100);
    // The console keeps rewriting the same command without advancing the sequence number: after
    // the timeout that is no command at all, and the arm stops.
    for (let i = 0; i < 40; i++) {
      command(c, CommandCode.SPEED, 0.05, 0, 1.5, false);
      c.tick();
    }
    expect(c.programState).toBe(ProgramState.TRIPPED);
    expect(c.arm.speed).toBe(0);
    for (let i = 0; i < 50; i++) {
      command(c, CommandCode.SPEED, 0.05, 0, 1.5, false);
      c.tick();
    }
    expect(c.arm.speed).toBe(0);
    // A fresh motion command is still refused: the program needs a zero-velocity re-arm first.
    drive(c, 0.05, 0, 50);
    expect(c.arm.speed).toBe(0);
    expect(c.programState).toBe(ProgramState.TRIPPED);
    command(c, CommandCode.SPEED, 0, 0);
    c.tick();
    expect(c.programState).toBe(ProgramState.ARMED);
    drive(c, 0.05, 0, 10);
    expect(c.arm.speed).toBeGreaterThan(0);
  });

  it('a stop command decelerates the arm and keeps the program armed while refreshed', () => {
    const c = controller();
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    drive(c, 0.1, 0, 200);
    command(c, CommandCode.STOP, 0, 0, 1);
    c.tick();
    expect(c.programState).toBe(ProgramState.ARMED);
    for (let i = 0; i < 100; i++) {
      command(c, CommandCode.STOP, 0, 0, 1);
      c.tick();
    }
    expect(c.arm.speed).toBe(0);
    expect(c.programState).toBe(ProgramState.ARMED);
  });

  it('holds the height the tool had when the program started', () => {
    const c = controller();
    const z0 = c.arm.pose[2];
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    c.arm.pose[2] = z0 - 0.005; // pushed down by contact
    drive(c, 0.02, 0, 1500);
    expect(c.arm.pose[2]).toBeCloseTo(z0, 4);
  });

  it('halts on the RTDE watchdog when the console stops writing altogether', () => {
    const c = controller({ watchdogTimeout: 0.02 });
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    ticks(c, 20); // 40 ms: own watchdog trips (stops the arm), the program still runs
    expect(c.runtime).toBe('PLAYING');
    ticks(c, 20); // beyond 3 x 20 ms without any write: the controller halts the program
    expect(c.runtime).toBe('STOPPED');
  });

  it('a protective stop pauses the program and stops the arm', () => {
    const c = controller();
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    drive(c, 0.1, 0, 200);
    c.injectProtectiveStop();
    ticks(c, 10);
    expect(c.arm.speed).toBe(0);
    expect(c.runtime).toBe('PAUSED');
    drive(c, 0.1, 0, 50);
    expect(c.arm.speed).toBe(0);
  });
});

describe('rendered URScript', () => {
  it('fills every placeholder from the settings and the register map', () => {
    const text = renderControlProgram({ watchdogTimeout: 0.05, maxSpeed: 0.2 });
    expect(text).not.toMatch(/\{\{/);
    expect(text).toMatch(/^ {2}WATCHDOG_TIMEOUT = 0\.05$/m);
    expect(text).toMatch(/^ {2}MAX_SPEED = 0\.2$/m);
    expect(text).toMatch(/^ {2}STOP_ACCELERATION = 1\.5$/m);
    expect(text).toMatch(new RegExp(`^ {2}REG_SEQUENCE = ${R.sequence}$`, 'm'));
    expect(text).toMatch(/rtde_set_watchdog\("input_int_register_24", 6\.66+7?, "stop"\)/);
    // Framed as the controller takes it: `def` first, `end` last, nothing around them.
    expect(text.startsWith('def parapush_control():\n')).toBe(true);
    expect(text.endsWith('\nend\n')).toBe(true);
    expect(text).not.toMatch(/^parapush_control\(\)/m);
    expect(parseControlProgram(text)).toEqual(
      controlProgramSettingsSchema.parse({ watchdogTimeout: 0.05, maxSpeed: 0.2 }),
    );
  });

  it('refuses a watchdog timeout above 100 ms and recognises foreign scripts', () => {
    expect(() => renderControlProgram({ watchdogTimeout: 0.2 })).toThrow(/at most 0\.1 s/);
    expect(parseControlProgram('def other():\n  stopl(1)\nend\n')).toBeUndefined();
    const c = controller();
    expect(c.loadScript('stopl(1.0)\n')).toBe('foreign');
    expect(c.programState).toBeUndefined();
  });

  it('block structure: every def/if/while is closed', () => {
    const text = renderControlProgram();
    let depth = 0;
    for (const raw of text.split('\n')) {
      const line = raw.replace(/#.*$/, '').trim();
      if (/^(def |if |while )/.test(line)) depth += 1;
      if (line === 'end') depth -= 1;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
  });
});
