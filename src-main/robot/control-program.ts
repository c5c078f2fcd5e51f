/**
 * The controller-side control program: settings, rendering of resources/urscript/parapush-control.script
 * (robot/script-connection.ts sends it to the controller's script port). A new script replaces
 * whatever program runs, so sending it is also how the program is restarted.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  CONTROL_PROGRAM_DEFAULTS as D,
  CONTROL_PROGRAM_LIMITS as L,
  MAX_STOP_DECELERATION,
  MIN_COMMAND_ACCELERATION,
  STOP_YAW_DECELERATION,
} from '#contract/safety-limits';
import { flangeLoadSchema, type FlangeLoadInput } from '#contract/flange-load';
import { CommandCode, ProgramState, REGISTER_NUMBERS } from './registers';

export const PROGRAM_NAME = 'parapush_control';

const TEMPLATE_PATH = fileURLToPath(
  new URL('../../resources/urscript/parapush-control.script', import.meta.url),
);

/**
 * A speed or yaw rate within this factor of its cap is rounding (a table-frame command turned into
 * the base frame) and is scaled to the cap; anything beyond it trips the program.
 */
export const CAP_TOLERANCE = 1 + 1e-6;

/** A finite number in (0, max] or [min, max], the bound and unit in the message. */
function bounded(min: number, max: number, unit: string, minInclusive = true) {
  const low = minInclusive ? `at least ${min}` : `greater than ${min}`;
  return z
    .number()
    .refine(Number.isFinite, 'must be a finite number')
    .refine((v) => (minInclusive ? v >= min : v > min), `must be ${low} ${unit}`)
    .refine((v) => v <= max, `must be at most ${max} ${unit}`);
}

export const controlProgramSettingsSchema = z
  .object({
    watchdogTimeout: bounded(L.watchdogTimeout.min, L.watchdogTimeout.max, 's')
      .default(D.watchdogTimeout)
      .describe('s without a fresh command before the program stops the arm'),
    stopAcceleration: bounded(L.stopAcceleration.min, L.stopAcceleration.max, 'm/s^2')
      .default(D.stopAcceleration)
      .describe('m/s^2, deceleration of a watchdog stop'),
    maxSpeed: bounded(0, L.maxSpeed, 'm/s', false)
      .default(D.maxSpeed)
      .describe('m/s, hard cap on the commanded tool speed'),
    maxAcceleration: bounded(L.maxAcceleration.min, L.maxAcceleration.max, 'm/s^2')
      .default(D.maxAcceleration)
      .describe('m/s^2, cap on the commanded acceleration'),
    maxYawRate: bounded(0, L.maxYawRate, 'rad/s', false)
      .default(D.maxYawRate)
      .describe('rad/s, hard cap on the commanded yaw rate about base z'),
    maxYawAcceleration: bounded(L.maxYawAcceleration.min, L.maxYawAcceleration.max, 'rad/s^2')
      .default(D.maxYawAcceleration)
      .describe('rad/s^2, cap on the commanded yaw acceleration'),
    heightGain: bounded(0, L.heightGain, '1/s', false)
      .default(D.heightGain)
      .describe('1/s, proportional gain that holds the start height'),
    maxHeightCorrection: bounded(0, L.maxHeightCorrection, 'm/s', false)
      .default(D.maxHeightCorrection)
      .describe('m/s, clamp on the height-hold velocity'),
  })
  .strict();

export type ControlProgramSettings = z.infer<typeof controlProgramSettingsSchema>;
export type ControlProgramSettingsInput = z.input<typeof controlProgramSettingsSchema>;

/**
 * What the rendering needs to know of the controller: its software major version. `stopl(a, aRot)`
 * is documented for the e-Series (5.x) only; the CB3 (3.x) script manual has `stopl(a)`, which ur_rtde
 * sends to both, and which stops the rotation at `a` too.
 */
export interface ProgramTarget {
  controllerMajor: number;
}

/** The e-Series: what a program rendered without a known controller is written for. */
const DEFAULT_TARGET: ProgramTarget = { controllerMajor: 5 };

/** Whether this controller's stopl takes a rotational deceleration. */
export function stoplTakesRotation(target: ProgramTarget): boolean {
  return target.controllerMajor >= 5;
}

/**
 * Longest a stop of the program blocks it (s): stopl returns once the arm stands still, and from
 * the program's caps that takes at most this long at its weakest deceleration, linear (the speed
 * cap with the height hold) and rotational (the yaw-rate cap, at aRot or, where stopl has none, at
 * the linear deceleration). Heartbeat and ack registers stand still meanwhile.
 */
export function maxStopDuration(settings: ControlProgramSettings, target: ProgramTarget): number {
  const yawDeceleration = stoplTakesRotation(target) ? STOP_YAW_DECELERATION : settings.stopAcceleration;
  return Math.max(
    Math.hypot(settings.maxSpeed, settings.maxHeightCorrection) / settings.stopAcceleration,
    settings.maxYawRate / yawDeceleration,
  );
}

/** URScript pose literal. */
function pose(values: readonly number[]): string {
  return `p[${values.map(float).join(', ')}]`;
}

/** URScript float literal: always with a decimal point so the controller types it as a float. */
function float(v: number): string {
  const s = String(v);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/**
 * The controller's RTDE watchdog on the sequence register. It fires at a third of our own
 * watchdog's rate, so our watchdog (which only stops the arm) always acts first and the halt is a
 * backstop for a console that stopped writing altogether.
 */
export function rtdeWatchdogFrequency(settings: ControlProgramSettings): number {
  return 1 / (3 * settings.watchdogTimeout);
}

export function renderControlProgram(
  input: ControlProgramSettingsInput = {},
  target: ProgramTarget = DEFAULT_TARGET,
  flangeLoad: FlangeLoadInput = {},
): string {
  const s = controlProgramSettingsSchema.parse(input);
  const load = flangeLoadSchema.parse(flangeLoad);
  const rotation = stoplTakesRotation(target) ? ', STOP_YAW_DECELERATION' : '';
  const values: Record<string, string> = {
    stopWatchdog: `STOP_ACCELERATION${rotation}`,
    stopCommand: `acc${rotation}`,
    payloadMass: float(load.mass),
    payloadCog: `[${load.centerOfGravity.map(float).join(', ')}]`,
    tcp: pose(load.tcp),
    watchdogTimeout: float(s.watchdogTimeout),
    stopAcceleration: float(s.stopAcceleration),
    maxSpeed: float(s.maxSpeed),
    maxAcceleration: float(s.maxAcceleration),
    maxYawRate: float(s.maxYawRate),
    maxYawAcceleration: float(s.maxYawAcceleration),
    stopYawDeceleration: float(STOP_YAW_DECELERATION),
    heightGain: float(s.heightGain),
    maxHeightCorrection: float(s.maxHeightCorrection),
    minCommandAcceleration: float(MIN_COMMAND_ACCELERATION),
    maxStopAcceleration: float(MAX_STOP_DECELERATION),
    capTolerance: float(CAP_TOLERANCE),
    rtdeWatchdogFrequency: float(rtdeWatchdogFrequency(s)),
    regSequence: String(REGISTER_NUMBERS.sequence),
    regCommand: String(REGISTER_NUMBERS.command),
    regVx: String(REGISTER_NUMBERS.vx),
    regVy: String(REGISTER_NUMBERS.vy),
    regAcceleration: String(REGISTER_NUMBERS.acceleration),
    regYawRate: String(REGISTER_NUMBERS.yawRate),
    regYawAcceleration: String(REGISTER_NUMBERS.yawAcceleration),
    regAckSequence: String(REGISTER_NUMBERS.ackSequence),
    regProgramState: String(REGISTER_NUMBERS.programState),
    regHeartbeat: String(REGISTER_NUMBERS.heartbeat),
    cmdSpeed: String(CommandCode.SPEED),
    stateWaitRearm: String(ProgramState.WAIT_REARM),
    stateArmed: String(ProgramState.ARMED),
    stateMoving: String(ProgramState.MOVING),
    stateTripped: String(ProgramState.TRIPPED),
  };
  return readFileSync(TEMPLATE_PATH, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`control program template: no value for {{${key}}}`);
    return v;
  });
}

const SETTING_LINES: Record<keyof ControlProgramSettings, string> = {
  watchdogTimeout: 'WATCHDOG_TIMEOUT',
  stopAcceleration: 'STOP_ACCELERATION',
  maxSpeed: 'MAX_SPEED',
  maxAcceleration: 'MAX_ACCELERATION',
  maxYawRate: 'MAX_YAW_RATE',
  maxYawAcceleration: 'MAX_YAW_ACCELERATION',
  heightGain: 'HEIGHT_GAIN',
  maxHeightCorrection: 'MAX_HEIGHT_CORRECTION',
};

/** What a rendered program declares beyond its settings (the virtual controller reads it back). */
export interface ProgramDeclarations {
  /** Some stopl passes a rotational deceleration (the e-Series form). */
  stoplWithRotation: boolean;
  payload: { mass: number; centerOfGravity: number[] } | undefined;
  tcp: number[] | undefined;
}

function numbers(list: string): number[] {
  return list.split(',').map((v) => Number(v.trim()));
}

export function programDeclarations(text: string): ProgramDeclarations {
  const payload = /^\s*set_payload\(([-+0-9.eE]+),\s*\[([^\]]*)\]\)\s*$/m.exec(text);
  const tcp = /^\s*set_tcp\(p\[([^\]]*)\]\)\s*$/m.exec(text);
  return {
    stoplWithRotation: /^\s*stopl\([^,()]+,[^()]+\)\s*$/m.test(text),
    payload: payload ? { mass: Number(payload[1]), centerOfGravity: numbers(payload[2]!) } : undefined,
    tcp: tcp ? numbers(tcp[1]!) : undefined,
  };
}

/**
 * Reads the settings back from a rendered program, or returns undefined when the text is not our
 * control program (any other script simply replaces it on a real controller).
 */
export function parseControlProgram(text: string): ControlProgramSettings | undefined {
  // The program is the whole text: `def` on its first line (script-server.ts cuts the stream so).
  if (!text.startsWith(`def ${PROGRAM_NAME}():`)) return undefined;
  const raw: Record<string, number> = {};
  for (const [key, name] of Object.entries(SETTING_LINES)) {
    const m = new RegExp(`^\\s*${name}\\s*=\\s*([-+0-9.eE]+)\\s*$`, 'm').exec(text);
    if (m) raw[key] = Number(m[1]);
  }
  const parsed = controlProgramSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
