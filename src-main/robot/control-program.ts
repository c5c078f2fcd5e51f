/**
 * The controller-side control program: settings, rendering of resources/urscript/parapush-control.script
 * and sending it to the controller's script port (30002 secondary or 30003 realtime). A new script
 * replaces whatever program runs, so sending it is also how the program is restarted.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CommandCode, ProgramState, REGISTER_NUMBERS } from './registers';

export const PROGRAM_NAME = 'parapush_control';

const TEMPLATE_PATH = fileURLToPath(
  new URL('../../resources/urscript/parapush-control.script', import.meta.url),
);

const positive = z.number().refine((v) => Number.isFinite(v) && v > 0, 'must be a finite number > 0');

export const controlProgramSettingsSchema = z
  .object({
    watchdogTimeout: positive
      .refine((v) => v <= 0.1, 'must be at most 0.1 s')
      .default(0.1)
      .describe('s without a fresh command before the program stops the arm'),
    stopAcceleration: positive.default(1.5).describe('m/s^2, deceleration of a watchdog stop'),
    maxSpeed: positive.default(0.25).describe('m/s, hard cap on the commanded tool speed'),
    maxAcceleration: positive.default(1.5).describe('m/s^2, cap on the commanded acceleration'),
    heightGain: positive.default(2).describe('1/s, proportional gain that holds the start height'),
    maxHeightCorrection: positive.default(0.02).describe('m/s, clamp on the height-hold velocity'),
  })
  .strict();

export type ControlProgramSettings = z.infer<typeof controlProgramSettingsSchema>;
export type ControlProgramSettingsInput = z.input<typeof controlProgramSettingsSchema>;

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

export function renderControlProgram(input: ControlProgramSettingsInput = {}): string {
  const s = controlProgramSettingsSchema.parse(input);
  const values: Record<string, string> = {
    watchdogTimeout: float(s.watchdogTimeout),
    stopAcceleration: float(s.stopAcceleration),
    maxSpeed: float(s.maxSpeed),
    maxAcceleration: float(s.maxAcceleration),
    heightGain: float(s.heightGain),
    maxHeightCorrection: float(s.maxHeightCorrection),
    rtdeWatchdogFrequency: float(rtdeWatchdogFrequency(s)),
    regSequence: String(REGISTER_NUMBERS.sequence),
    regCommand: String(REGISTER_NUMBERS.command),
    regVx: String(REGISTER_NUMBERS.vx),
    regVy: String(REGISTER_NUMBERS.vy),
    regAcceleration: String(REGISTER_NUMBERS.acceleration),
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
  heightGain: 'HEIGHT_GAIN',
  maxHeightCorrection: 'MAX_HEIGHT_CORRECTION',
};

/**
 * Reads the settings back from a rendered program, or returns undefined when the text is not our
 * control program (any other script simply replaces it on a real controller).
 */
export function parseControlProgram(text: string): ControlProgramSettings | undefined {
  if (!new RegExp(`^def ${PROGRAM_NAME}\\(\\):`, 'm').test(text)) return undefined;
  const raw: Record<string, number> = {};
  for (const [key, name] of Object.entries(SETTING_LINES)) {
    const m = new RegExp(`^\\s*${name}\\s*=\\s*([-+0-9.eE]+)\\s*$`, 'm').exec(text);
    if (m) raw[key] = Number(m[1]);
  }
  const parsed = controlProgramSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Sends a program to a script port and resolves once the controller has taken all bytes. */
export function sendProgram(host: string, port: number, text: string, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`script port ${host}:${port}: not sent within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`script port ${host}:${port}: ${err.message}`));
    });
    // The controller streams state on these ports; we do not need it.
    socket.on('data', () => {});
    socket.once('connect', () => {
      socket.end(text.endsWith('\n') ? text : `${text}\n`, () => {
        clearTimeout(timer);
        socket.destroy();
        resolve();
      });
    });
  });
}
