/**
 * The shipped controller-side program (resources/urscript/parapush-control.script) against the
 * TypeScript side that renders it and the re-implementation the virtual UR runs
 * (src-main/virtual-lab/virtual-ur/control-program-runner.ts): the register numbers, the command and state
 * codes, the watchdog timeout, the stop deceleration, the speed and acceleration caps. The
 * re-implementation is only a valid test double while these agree, so a change to one side that
 * is not made to the other fails here.
 */
import { readFileSync } from 'node:fs';
import {
  CONTROL_PROGRAM_DEFAULTS,
  MAX_STOP_DECELERATION,
  MIN_COMMAND_ACCELERATION,
  STOP_DECELERATION,
  STOP_YAW_DECELERATION,
} from '#contract/safety-limits';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualController } from '../../src-main/virtual-lab/virtual-ur/controller';
import {
  CAP_TOLERANCE,
  controlProgramSettingsSchema,
  parseControlProgram,
  renderControlProgram,
} from '../../src-main/robot/control-program';
import { CommandCode, INPUT_NAMES, ProgramState, REGISTER_NUMBERS } from '../../src-main/robot/registers';
import { repoRoot } from '../helpers/scenes';

const template = readFileSync(path.join(repoRoot, 'resources/urscript/parapush-control.script'), 'utf8');
const rendered = renderControlProgram();

/** The value of a `NAME = value` line of the rendered program. */
function constant(name: string): number {
  const m = new RegExp(`^\\s*${name}\\s*=\\s*([-+0-9.eE]+)\\s*$`, 'm').exec(rendered);
  expect(m, `${name} is not set in the script`).not.toBeNull();
  return Number(m![1]);
}

/** Script code without comments, for matching statements. */
const code = rendered.replace(/#.*$/gm, '');

describe('the shipped URScript file', () => {
  it('takes every register number from the register map, never as a literal', () => {
    const names = {
      REG_SEQUENCE: REGISTER_NUMBERS.sequence,
      REG_COMMAND: REGISTER_NUMBERS.command,
      REG_VX: REGISTER_NUMBERS.vx,
      REG_VY: REGISTER_NUMBERS.vy,
      REG_ACCELERATION: REGISTER_NUMBERS.acceleration,
      REG_YAW_RATE: REGISTER_NUMBERS.yawRate,
      REG_YAW_ACCELERATION: REGISTER_NUMBERS.yawAcceleration,
      REG_ACK_SEQUENCE: REGISTER_NUMBERS.ackSequence,
      REG_PROGRAM_STATE: REGISTER_NUMBERS.programState,
      REG_HEARTBEAT: REGISTER_NUMBERS.heartbeat,
    };
    for (const [name, n] of Object.entries(names)) {
      expect(template, `${name} must be a placeholder`).toMatch(
        new RegExp(`^\\s*${name} = \\{\\{\\w+\\}\\}$`, 'm'),
      );
      expect(constant(name), name).toBe(n);
    }
    // Register access only through those names.
    expect(code).not.toMatch(/_register\(\s*\d/);
    const io = [
      ...code.matchAll(/(read_input_(?:integer|float)_register|write_output_integer_register)\((\w+)/g),
    ];
    expect(new Set(io.map((m) => m[2]))).toEqual(
      new Set([
        'REG_SEQUENCE',
        'REG_COMMAND',
        'REG_VX',
        'REG_VY',
        'REG_ACCELERATION',
        'REG_YAW_RATE',
        'REG_YAW_ACCELERATION',
        'REG_ACK_SEQUENCE',
        'REG_PROGRAM_STATE',
        'REG_HEARTBEAT',
      ]),
    );
    // The controller's own RTDE watchdog watches the register the console advances.
    expect(code).toMatch(new RegExp(`rtde_set_watchdog\\("${INPUT_NAMES.sequence}", `));
  });

  it('uses the command and state codes of the register map', () => {
    expect(constant('CMD_SPEED')).toBe(CommandCode.SPEED);
    expect(constant('STATE_WAIT_REARM')).toBe(ProgramState.WAIT_REARM);
    expect(constant('STATE_ARMED')).toBe(ProgramState.ARMED);
    expect(constant('STATE_MOVING')).toBe(ProgramState.MOVING);
    expect(constant('STATE_TRIPPED')).toBe(ProgramState.TRIPPED);
  });

  it('runs with the settings the console and the re-implementation assume', () => {
    expect(constant('WATCHDOG_TIMEOUT')).toBe(CONTROL_PROGRAM_DEFAULTS.watchdogTimeout);
    expect(constant('STOP_ACCELERATION')).toBe(STOP_DECELERATION);
    expect(constant('MAX_SPEED')).toBe(CONTROL_PROGRAM_DEFAULTS.maxSpeed);
    expect(constant('MAX_ACCELERATION')).toBe(CONTROL_PROGRAM_DEFAULTS.maxAcceleration);
    expect(constant('MAX_YAW_RATE')).toBe(CONTROL_PROGRAM_DEFAULTS.maxYawRate);
    expect(constant('MAX_YAW_ACCELERATION')).toBe(CONTROL_PROGRAM_DEFAULTS.maxYawAcceleration);
    expect(constant('STOP_YAW_DECELERATION')).toBe(STOP_YAW_DECELERATION);
    expect(parseControlProgram(rendered)).toEqual(controlProgramSettingsSchema.parse({}));
  });

  it('makes the decisions the re-implementation makes, with the same constants', () => {
    // Watchdog: a trip stops at the stop deceleration.
    expect(code).toMatch(
      /elif age > WATCHDOG_TIMEOUT:[^]*?stopl\(STOP_ACCELERATION, STOP_YAW_DECELERATION\)/,
    );
    // Range checks: written as "within range" so that a NaN fails them, and a failed one trips.
    expect(code).toMatch(
      /valid = speed <= MAX_SPEED \* CAP_TOLERANCE and cmd_wz <= MAX_YAW_RATE \* CAP_TOLERANCE and cmd_wz >= -MAX_YAW_RATE \* CAP_TOLERANCE and cmd_acc >= MIN_COMMAND_ACCELERATION and cmd_acc <= MAX_ACCELERATION and cmd_acc_yaw >= MIN_COMMAND_ACCELERATION and cmd_acc_yaw <= MAX_YAW_ACCELERATION\s+if valid:/,
    );
    expect(code).toMatch(/ else:\s+state = STATE_TRIPPED\s+vx = 0\.0/);
    expect(constant('MIN_COMMAND_ACCELERATION')).toBe(MIN_COMMAND_ACCELERATION);
    expect(constant('MAX_STOP_ACCELERATION')).toBe(MAX_STOP_DECELERATION);
    expect(constant('CAP_TOLERANCE')).toBe(CAP_TOLERANCE);
    // Within the tolerance: scaled down to MAX_SPEED, direction kept; the yaw rate clamped.
    expect(code).toMatch(/if speed > MAX_SPEED:\s+scale = MAX_SPEED \/ speed/);
    expect(code).toMatch(/wz = min\(max\(cmd_wz, -MAX_YAW_RATE\), MAX_YAW_RATE\)/);
    // A stop: never softer than STOP_ACCELERATION, harder only up to MAX_STOP_ACCELERATION.
    expect(code).toMatch(
      /acc = STOP_ACCELERATION\s+if cmd_acc > STOP_ACCELERATION and cmd_acc <= MAX_STOP_ACCELERATION:\s+acc = cmd_acc/,
    );
    expect([...code.matchAll(/stopl\(([^)]*)\)/g)].map((m) => m[1])).toEqual([
      'STOP_ACCELERATION, STOP_YAW_DECELERATION',
      'STOP_ACCELERATION, STOP_YAW_DECELERATION',
      'acc, STOP_YAW_DECELERATION',
    ]);
    // The only rotation commanded is about base z.
    expect(code).toMatch(/speedl\(\[vx, vy, vz, 0, 0, wz\], acc, step, acc_yaw\)/);
    // Freshness and re-arm: no translation and no turn.
    expect(code).toMatch(/fresh = seq != last_seq/);
    expect(code).toMatch(/if fresh and cmd_vx == 0 and cmd_vy == 0 and cmd_wz == 0:\s+state = STATE_ARMED/);
  });
});

describe('the re-implementation, run on the shipped file', () => {
  const R = REGISTER_NUMBERS;
  const frequency = 500;
  let seq = 7;

  function command(c: VirtualController, code: number, vx: number, vy: number, acc = 1.5): void {
    seq += 1;
    c.registers.inputInt[R.sequence] = seq;
    c.registers.inputInt[R.command] = code;
    c.registers.inputDouble[R.vx] = vx;
    c.registers.inputDouble[R.vy] = vy;
    c.registers.inputDouble[R.acceleration] = acc;
    c.registers.inputDouble[R.yawRate] = 0;
    c.registers.inputDouble[R.yawAcceleration] = STOP_YAW_DECELERATION;
    c.noteInputWrite(INPUT_NAMES.sequence);
  }

  function started(): VirtualController {
    const c = new VirtualController({ frequency });
    expect(c.loadScript(rendered)).toBe('started');
    command(c, CommandCode.STOP, 0, 0);
    c.tick();
    expect(c.programState).toBe(ProgramState.ARMED);
    return c;
  }

  it('turns up to MAX_YAW_RATE and stops the turn at STOP_YAW_DECELERATION', () => {
    const c = started();
    const turn = (rate: number): void => {
      command(c, CommandCode.SPEED, 0, 0);
      c.registers.inputDouble[R.yawRate] = rate;
      c.registers.inputDouble[R.yawAcceleration] = CONTROL_PROGRAM_DEFAULTS.maxYawAcceleration;
    };
    for (let i = 0; i < 500; i++) {
      turn(CONTROL_PROGRAM_DEFAULTS.maxYawRate * (1 + 1e-9));
      c.tick();
    }
    expect(c.arm.yawRate).toBeCloseTo(CONTROL_PROGRAM_DEFAULTS.maxYawRate, 9);
    // The tool turned about base z only: still pointing down.
    expect(Math.hypot(c.arm.pose[3], c.arm.pose[4], c.arm.pose[5])).toBeGreaterThan(3);
    command(c, CommandCode.STOP, 0, 0);
    c.registers.inputDouble[R.yawRate] = 0;
    c.tick();
    expect(CONTROL_PROGRAM_DEFAULTS.maxYawRate - c.arm.yawRate).toBeCloseTo(
      STOP_YAW_DECELERATION / frequency,
      9,
    );
    // A re-arm needs no turn either: a fresh zero-velocity command that still asks to turn is not one.
    const d = new VirtualController({ frequency });
    d.loadScript(rendered);
    command(d, CommandCode.STOP, 0, 0);
    d.registers.inputDouble[R.yawRate] = 0.1;
    d.tick();
    expect(d.programState).toBe(ProgramState.WAIT_REARM);
  });

  it('scales a speed over MAX_SPEED by rounding to the cap, and trips on a real excess', () => {
    const c = started();
    for (let i = 0; i < 500; i++) {
      command(c, CommandCode.SPEED, CONTROL_PROGRAM_DEFAULTS.maxSpeed * (1 + 1e-9), 0);
      c.tick();
    }
    expect(c.arm.speed).toBeCloseTo(CONTROL_PROGRAM_DEFAULTS.maxSpeed, 9);
    expect(c.programState).toBe(ProgramState.MOVING);
    command(c, CommandCode.SPEED, 1, 0);
    c.tick();
    expect(c.programState).toBe(ProgramState.TRIPPED);
  });

  it('trips after WATCHDOG_TIMEOUT and stops at STOP_ACCELERATION', () => {
    const c = started();
    for (let i = 0; i < 300; i++) {
      command(c, CommandCode.SPEED, 0.2, 0, CONTROL_PROGRAM_DEFAULTS.maxAcceleration);
      c.tick();
    }
    expect(c.arm.speed).toBeCloseTo(0.2, 9);
    let cycles = 0;
    while (c.programState !== ProgramState.TRIPPED && cycles < 1000) {
      c.tick();
      cycles += 1;
    }
    // age counts from the cycle after the last fresh command and must exceed the timeout.
    expect(cycles / frequency).toBeCloseTo(CONTROL_PROGRAM_DEFAULTS.watchdogTimeout, 2);
    const before = c.arm.speed;
    c.tick();
    expect(before - c.arm.speed).toBeCloseTo(STOP_DECELERATION / frequency, 9);
  });
});

describe('the tool and the controller version', () => {
  it("declares the setup's payload and TCP, and the virtual controller reads them back", () => {
    const tool = { mass: 1.2, centerOfGravity: [0, 0.01, 0.06] as [number, number, number] };
    const text = renderControlProgram({}, { controllerMajor: 5 }, tool);
    expect(text).toMatch(/^ {2}set_payload\(1\.2, \[0\.0, 0\.01, 0\.06\]\)$/m);
    expect(text).toMatch(/^ {2}set_tcp\(p\[0\.0, 0\.0, 0\.0, 0\.0, 0\.0, 0\.0\]\)$/m);
    const c = new VirtualController({ software: '5.11' });
    expect(c.loadScript(text)).toBe('started');
    expect(c.declaredTool).toEqual({
      payload: { mass: 1.2, centerOfGravity: [0, 0.01, 0.06] },
      tcp: [0, 0, 0, 0, 0, 0],
    });
    expect(() => renderControlProgram({}, { controllerMajor: 5 }, { mass: 6 })).toThrow(/between 0 and 5 kg/);
  });

  it('renders stopl(a, aRot) for an e-Series and stopl(a) for a CB3, each stop of the program', () => {
    const stops = (major: number): string[] =>
      renderControlProgram({}, { controllerMajor: major })
        .replace(/#.*$/gm, '')
        .match(/stopl\([^)]*\)/g) ?? [];
    expect(stops(5)).toEqual([
      'stopl(STOP_ACCELERATION, STOP_YAW_DECELERATION)',
      'stopl(STOP_ACCELERATION, STOP_YAW_DECELERATION)',
      'stopl(acc, STOP_YAW_DECELERATION)',
    ]);
    expect(stops(3)).toEqual(['stopl(STOP_ACCELERATION)', 'stopl(STOP_ACCELERATION)', 'stopl(acc)']);
  });

  it('the speed slider: a speedl target is reached at the slider fraction of its speed', () => {
    const c = new VirtualController({ software: '5.11', speedSlider: 0.5 });
    c.arm.speedl([0.2, 0, 0], 10);
    for (let k = 0; k < 100; k++) c.tick();
    expect(c.arm.speed).toBeCloseTo(0.1, 9);
    expect(() => c.setSpeedSlider(0)).toThrow(/not in \(0, 1\]/);
  });
});
