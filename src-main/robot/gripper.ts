/**
 * Robotiq 2-finger gripper through the Robotiq URCap socket (TCP 63352): `GET VAR` -> `VAR n` and a
 * newline, `SET A n B m` -> the three bytes `ack` with no newline (Robotiq's URCap script reads 3
 * bytes; ur_rtde compares the reply to "ack"). A reply that does not come is a GripperError,
 * like every other gripper problem, so pre-flight can name it. Activation, closing on the pusher with confirmation that it is held
 * (OBJ = 2), fault decoding, and a monitor that reports a lost pusher as a stop reason. The
 * request and reply codecs are plain functions: a reply line, whatever it holds, gives a register
 * value 0..255 or a GripperError.
 *
 * As the robot of a gripper scene it opens fully before a run and moves its fingers to a gap at a
 * speed (`moveFingers`); its position register converts to the gap between the fingers linearly
 * over the stroke (POS 0 fully open, 255 closed), its speed register to the opening speed over the
 * Robotiq's range (ROBOTIQ_OPENING_SPEED).
 */
import { EventEmitter } from 'node:events';
import type {
  FaultClass,
  FingerDevice,
  FingerDeviceEvents,
  GripOptions,
  GripperFault,
  GripperStatus,
  GripperStopReason,
} from './finger-device';
import { LineClient, LineClientError, lineReply, type ReplyFraming } from './line-client';
import { monotonicSeconds } from '../common/clock';
import { sleep } from '../common/timers';

export type GripperVariable =
  'ACT' | 'GTO' | 'ATR' | 'ARD' | 'FOR' | 'SPE' | 'POS' | 'STA' | 'PRE' | 'OBJ' | 'FLT';
export type WritableVariable = 'ACT' | 'GTO' | 'ATR' | 'ARD' | 'FOR' | 'SPE' | 'POS';

/** OBJ: what the fingers are doing. */
export const ObjectStatus = { MOVING: 0, STOPPED_OPENING: 1, HELD: 2, AT_POSITION: 3 } as const;

/** STA: activation status. */
export const ActivationStatus = { RESET: 0, ACTIVATING: 1, ACTIVE: 3 } as const;

const FAULTS: Record<number, [FaultClass, string]> = {
  0x00: ['none', 'no fault'],
  0x05: ['priority', 'action delayed: the activation must complete first'],
  0x07: ['priority', 'the activation bit must be set before any action'],
  0x08: ['minor', 'maximum operating temperature exceeded: wait for cool-down'],
  0x09: ['minor', 'no communication for at least 1 s'],
  0x0a: ['major', 'under minimum operating voltage'],
  0x0b: ['major', 'automatic release in progress'],
  0x0c: ['major', 'internal fault: contact support'],
  0x0d: ['major', 'activation fault: check that nothing interferes with the fingers'],
  0x0e: ['major', 'overcurrent triggered'],
  0x0f: ['major', 'automatic release completed'],
};

export function decodeFault(code: number): GripperFault {
  const [cls, description] = FAULTS[code] ?? [
    'unknown',
    `unknown fault 0x${code.toString(16).padStart(2, '0')}`,
  ];
  return { code, class: cls, description, needsReactivation: cls === 'major' };
}

/**
 * The opening speeds the speed register spans (m/s): SPE 0 the slowest, 255 the fastest; the
 * 2F-85's 20..150 mm/s, the scene limit's (contract/safety-limits.ts SCENE_LIMITS.maxOpeningSpeed).
 */
export const ROBOTIQ_OPENING_SPEED = { min: 0.02, max: 0.15 } as const;

/**
 * The position register values a gripper reads fully open and fully closed on nothing: a 2F-85
 * reads about 3 and 227-230, not 0 and 255, and each unit differs. ur_rtde measures them at
 * activation (robotiq_gripper.cpp, auto-calibrate) and maps gaps between them; so do we
 * (robot/gripper-range.ts).
 */
export interface PositionRange {
  open: number;
  closed: number;
}

/** The gap between the fingers (m) at position register value `position` for a gripper of `stroke` m. */
export function openingAt(position: number, stroke: number, range: PositionRange): number {
  const p = Math.min(Math.max(position, range.open), range.closed);
  return stroke * (1 - (p - range.open) / (range.closed - range.open));
}

/** The position register value nearest a gap of `opening` m for a gripper of `stroke` m. */
export function positionFor(opening: number, stroke: number, range: PositionRange): number {
  const f = Math.min(Math.max(opening / stroke, 0), 1);
  return Math.round(range.open + (range.closed - range.open) * (1 - f));
}

/**
 * The speed register value for an opening speed (m/s), rounded up so the fingers are never
 * slower than asked; below the Robotiq's slowest they move at their slowest (SPE 0) and arrive
 * early, which a move to a gap (not a speed held over time) allows.
 */
export function speedRegisterFor(speed: number): number {
  const { min, max } = ROBOTIQ_OPENING_SPEED;
  return Math.min(255, Math.max(0, Math.ceil((255 * (speed - min)) / (max - min))));
}

export class GripperError extends Error {
  override name = 'GripperError';
}

/** The gripper answers `?` while an emergency stop is active. */
export class GripperUnavailableError extends GripperError {
  override name = 'GripperUnavailableError';
}

export class GripperFaultError extends GripperError {
  override name = 'GripperFaultError';
  constructor(readonly fault: GripperFault) {
    super(
      `gripper fault 0x${fault.code.toString(16).padStart(2, '0')} (${fault.class}): ${fault.description}`,
    );
  }
}

/** `GET POS`. */
export function getCommand(variable: GripperVariable): string {
  return `GET ${variable}`;
}

/** `POS 42` -> 42. Every register is one byte: anything else is not an answer we understand. */
export function parseGetReply(variable: GripperVariable, reply: string): number {
  const text = reply.trim();
  if (text === '?' || text === `${variable} ?`) {
    throw new GripperUnavailableError(`gripper answers "?" for ${variable}: is an emergency stop active?`);
  }
  const m = new RegExp(`^${variable} (\\d{1,3})$`).exec(text);
  const value = m ? Number(m[1]) : NaN;
  if (!(value <= 0xff)) throw new GripperError(`unexpected reply to GET ${variable}: "${text}"`);
  return value;
}

/** `SET POS 255 GTO 1`, in the order given; throws RangeError on a value that is not a byte. */
export function setCommand(values: Partial<Record<WritableVariable, number>>): string {
  const parts = Object.entries(values).map(([k, v]) => {
    if (!Number.isInteger(v) || v < 0 || v > 255)
      throw new RangeError(`${k} must be an integer 0..255, got ${v}`);
    return `${k} ${v}`;
  });
  if (parts.length === 0) throw new RangeError('SET needs at least one variable');
  return `SET ${parts.join(' ')}`;
}

/**
 * The reply to a SET: exactly `ack` (no newline follows it), or a line (`?` during an e-stop). A
 * newline after `ack`, should a URCap send one, is taken by the next GET (getReply).
 */
export const setReply: ReplyFraming = (b) => {
  const blank = leadingBlank(b);
  const rest = b.slice(blank);
  if (rest.startsWith('ack')) return ['ack', blank + 3];
  if ('ack'.startsWith(rest)) return undefined;
  return after(blank, lineReply(rest));
};

/** The reply to a GET: a line, blank lines before it skipped. */
export const getReply: ReplyFraming = (b) => {
  const blank = leadingBlank(b);
  return after(blank, lineReply(b.slice(blank)));
};

function leadingBlank(b: string): number {
  return /^[\r\n]*/.exec(b)![0].length;
}

function after(skipped: number, got: [string, number] | undefined): [string, number] | undefined {
  return got && [got[0], got[1] + skipped];
}

/** The words pre-flight shows when a SET gets no acknowledgement. */
export const SET_NOT_ACKNOWLEDGED = 'gripper did not acknowledge SET';

/** `ack`, or a GripperError with what came instead. */
export function parseSetReply(command: string, reply: string): void {
  const text = reply.trim();
  if (text === '?') throw new GripperUnavailableError('gripper answers "?": is an emergency stop active?');
  if (text !== 'ack') throw new GripperError(`${SET_NOT_ACKNOWLEDGED} (${command}): "${text}"`);
}

export class RobotiqGripper extends EventEmitter<FingerDeviceEvents> implements FingerDevice {
  private monitorTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly lines: LineClient,
    /** Between two reads of a register awaited, s. */
    private readonly poll: number,
  ) {
    super();
  }

  static async connect(
    host: string,
    port = 63352,
    options: { timeout?: number; poll?: number } = {},
  ): Promise<RobotiqGripper> {
    // A newline after a bare `ack` (not what the URCap sends, but harmless) must not become a reply.
    const lines = await LineClient.connect(host, port, 'gripper', options.timeout ?? 2, {
      dropBlankLines: true,
    });
    return new RobotiqGripper(lines, options.poll ?? 0.02);
  }

  async get(variable: GripperVariable): Promise<number> {
    const command = getCommand(variable);
    return parseGetReply(variable, await this.ask(command, getReply, `gripper did not answer ${command}`));
  }

  /** Writes several variables in one command, in the order given. */
  async set(values: Partial<Record<WritableVariable, number>>): Promise<void> {
    const command = setCommand(values);
    parseSetReply(command, await this.ask(command, setReply, `${SET_NOT_ACKNOWLEDGED} (${command})`));
  }

  /** One request; a reply that does not come (timeout, link lost) is a GripperError saying so. */
  private async ask(command: string, framing: ReplyFraming, failure: string): Promise<string> {
    try {
      return await this.lines.request(command, framing);
    } catch (err) {
      if (err instanceof LineClientError)
        throw new GripperError(`${failure}: ${err.message}`, { cause: err });
      throw err;
    }
  }

  async status(): Promise<GripperStatus> {
    return {
      activation: await this.get('STA'),
      object: await this.get('OBJ'),
      position: await this.get('POS'),
      fault: decodeFault(await this.get('FLT')),
    };
  }

  /** Reset, then activate; resolves when STA = 3 (active). Clears major faults too. */
  async activate(timeout = 5): Promise<void> {
    await this.set({ ACT: 0 });
    await this.set({ ATR: 0 });
    await this.until(
      async () => (await this.get('ACT')) === 0 && (await this.get('STA')) === ActivationStatus.RESET,
      timeout,
      'reset',
    );
    await this.set({ ACT: 1 });
    await this.until(async () => (await this.get('STA')) === ActivationStatus.ACTIVE, timeout, 'activation');
  }

  /**
   * Closes on the pusher and confirms it is held (OBJ = 2). Throws when the fingers reach the
   * requested position with nothing between them (OBJ = 3) or on a fault.
   */
  async closeOnPusher(options: GripOptions = {}): Promise<GripperStatus> {
    const { position = 255, speed = 128, force = 128, timeout = 5 } = options;
    await this.set({ POS: position, SPE: speed, FOR: force, GTO: 1 });
    await this.until(async () => (await this.get('PRE')) === position, timeout, 'position request echo');
    const object = await this.motionEnd(timeout, 'grip');
    if (object !== ObjectStatus.HELD) {
      throw new GripperError(
        object === ObjectStatus.AT_POSITION
          ? 'no pusher between the fingers: they closed fully (OBJ = 3)'
          : `gripper stopped without holding the pusher (OBJ = ${object})`,
      );
    }
    return this.status();
  }

  /** Waits until the fingers stop (OBJ leaves MOVING) and returns the object status; a fault throws. */
  private async motionEnd(timeout: number, what: string): Promise<number> {
    let object: number = ObjectStatus.MOVING;
    await this.until(
      async () => {
        await this.throwOnFault();
        object = await this.get('OBJ');
        return object !== ObjectStatus.MOVING;
      },
      timeout,
      what,
    );
    return object;
  }

  /**
   * Starts a finger motion to position register value `position` (0 open .. 255 closed) at speed
   * and force register values; resolves once the gripper acknowledged it, not when it arrives.
   */
  async move(position: number, speed: number, force: number): Promise<void> {
    await this.set({ POS: position, SPE: speed, FOR: force, GTO: 1 });
  }

  /**
   * Opens fully and resolves once the fingers stand at the open position (OBJ = 3); an object
   * that stops them on the way (OBJ = 1) or a fault is a GripperError.
   */
  async openFully(timeout = 5): Promise<GripperStatus> {
    await this.move(0, 255, 0);
    const object = await this.motionEnd(timeout, 'opening');
    if (object !== ObjectStatus.AT_POSITION)
      throw new GripperError(`the fingers stopped before they were fully open (OBJ = ${object})`);
    return this.status();
  }

  /**
   * Closes fully at full speed with nothing between the fingers and resolves once they stand at
   * the mechanical stop (OBJ = 3); an object that stops them (OBJ = 2) or a fault is a GripperError.
   */
  async closeFully(timeout = 5): Promise<GripperStatus> {
    await this.move(255, 255, 0);
    const object = await this.motionEnd(timeout, 'closing');
    if (object !== ObjectStatus.AT_POSITION)
      throw new GripperError(
        `an object stopped the fingers closing (OBJ = ${object}): clear the fingers and activate again`,
      );
    return this.status();
  }

  /** True when the pusher is held right now (OBJ = 2, no fault). */
  async pusherHeld(): Promise<boolean> {
    return (await this.get('OBJ')) === ObjectStatus.HELD && (await this.get('FLT')) === 0;
  }

  /**
   * Polls OBJ and FLT and emits one 'stop' with the reason when the pusher is no longer held, a
   * fault appears, the gripper answers '?' (e-stop), or the link drops. Monitoring then ends.
   * As the robot of a gripper scene (`holdsPusher` false) it watches faults, e-stop and link and
   * reports each finger position it reads ('position', the register value, 0..255).
   */
  startMonitor(holdsPusher = true): void {
    if (this.monitorTimer) return;
    const report = (reason: GripperStopReason): void => {
      this.stopMonitor();
      this.emit('stop', reason);
    };
    this.lines.onClose((err) => this.monitorTimer && report({ kind: 'link-lost', message: err.message }));
    const poll = async (): Promise<void> => {
      try {
        const fault = decodeFault(await this.get('FLT'));
        if (fault.code !== 0) return report({ kind: 'fault', fault });
        if (holdsPusher) {
          const object = await this.get('OBJ');
          if (object !== ObjectStatus.HELD) return report({ kind: 'pusher-lost', object });
        } else this.emit('position', await this.get('POS'));
      } catch (err) {
        if (err instanceof GripperUnavailableError) return report({ kind: 'emergency-stop' });
        return report({ kind: 'link-lost', message: (err as Error).message });
      }
      if (this.monitorTimer) this.monitorTimer = setTimeout(() => void poll(), this.poll * 1000);
    };
    this.monitorTimer = setTimeout(() => void poll(), 0);
  }

  stopMonitor(): void {
    clearTimeout(this.monitorTimer);
    this.monitorTimer = undefined;
  }

  close(): void {
    this.stopMonitor();
    this.lines.close();
  }

  private async throwOnFault(): Promise<void> {
    const fault = decodeFault(await this.get('FLT'));
    if (fault.class === 'major' || fault.class === 'unknown' || fault.class === 'priority')
      throw new GripperFaultError(fault);
  }

  private async until(check: () => Promise<boolean>, timeout: number, what: string): Promise<void> {
    const deadline = monotonicSeconds() + timeout;
    for (;;) {
      if (await check()) return;
      if (monotonicSeconds() > deadline)
        throw new GripperError(`gripper ${what} not complete within ${timeout} s`);
      await sleep(this.poll);
    }
  }
}
