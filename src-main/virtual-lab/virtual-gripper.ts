/**
 * A virtual Robotiq 2-finger gripper behind the URCap socket (63352) on loopback: activation that
 * takes time, finger motion at the commanded speed, OBJ semantics with a pusher between the
 * fingers, and injectable faults, e-stop ('?' replies) and pusher loss.
 *
 * State is evaluated from elapsed time on every request, so there are no timers to manage.
 *
 * As the robot of a gripper scene its fingers are the lab world's (`attachFingers`): a command
 * drives the world's finger joints towards the requested gap at the requested speed, and POS and
 * OBJ report what they did there (OBJ 2 when an object stopped them closing).
 */
import { z } from 'zod';
import { openingAt, positionFor, ROBOTIQ_OPENING_SPEED } from '../robot/gripper';
import { LineServer } from './virtual-ur/line-server';
import { monotonicSeconds } from '../common/clock';

/**
 * A gripper's fingers as the virtual Robotiq drives them: towards a gap at a speed, force-limited
 * by the model's finger actuators (contract/end-effector/parallel-gripper.ts GRIP_FORCE), so an object between them
 * stops them and is held.
 */
export interface FingerDrive {
  /** Drives the gap between the fingers towards `opening` m at `speed` m/s (0: hold where they are). */
  moveTo(opening: number, speed: number): void;
  /**
   * The gap now (m), and whether the fingers stopped short of their target: crawling for a moment
   * while still away from it (an object between them, or pressed against one from outside).
   */
  readonly opening: number;
  readonly stalled: boolean;
  /** The widest gap (m): the tool's fully open fingers, the Robotiq's stroke as it drives them. */
  readonly maxOpening: number;
}

/**
 * Fingers within this of their target gap have arrived (m): the proportional approach takes the
 * last millimetres slowly, and the Robotiq's position resolution on a 2F-140 is 0.55 mm.
 */
export const FINGER_TOLERANCE = 0.002;

/** The register values at a gripper's mechanical stops, as a lab config gives them. */
export const positionRangeOptionSchema = z
  .object({ open: z.number().int().min(0).max(100), closed: z.number().int().min(150).max(255) })
  .strict();

export const virtualGripperOptionsSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(63352),
    activationTime: z.number().min(0).default(0.5).describe('s from ACT=1 to STA=3'),
    pusherPresent: z.boolean().default(true),
    /** Finger position (0 open .. 255 closed) at which they touch the pusher. */
    pusherContactPosition: z.number().int().min(1).max(254).default(227),
    /**
     * What POS reads at the mechanical stops: fully open and fully closed on nothing. A 2F-85
     * reads about 3 and 227-230 (ur_rtde measures them at activation); a request beyond either
     * stop ends at the stop, and PRE still echoes the request.
     */
    positionRange: positionRangeOptionSchema.default({ open: 3, closed: 228 }),
  })
  .strict();
export type VirtualGripperOptions = z.input<typeof virtualGripperOptionsSchema>;

const WRITABLE = new Set(['ACT', 'GTO', 'ATR', 'ARD', 'FOR', 'SPE', 'POS']);

export class VirtualGripper {
  readonly options: z.infer<typeof virtualGripperOptionsSchema>;
  port = 0;
  private readonly server: LineServer;
  private readonly regs: Record<string, number> = { ACT: 0, GTO: 0, ATR: 0, ARD: 0, FOR: 0, SPE: 0, POS: 0 };
  private activatedAt: number | undefined;
  private fault = 0;
  private eStop = false;
  private pusherPresent: boolean;
  /**
   * Motion segment: from `from` at time `t0` towards `target` (the request held within the
   * mechanical stops) at `speed` units/s; `requested` is the POS asked for (what PRE echoes).
   */
  private motion = { from: 0, t0: 0, target: 0, speed: 0, requested: 0 };
  /** The world's fingers and the gripper's stroke (m), when the gripper is the scene's robot. */
  private fingers: { drive: FingerDrive; stroke: number } | undefined;

  private constructor(options: VirtualGripperOptions) {
    this.options = virtualGripperOptionsSchema.parse(options);
    this.pusherPresent = this.options.pusherPresent;
    const open = this.options.positionRange.open;
    this.motion = { from: open, t0: 0, target: open, speed: 0, requested: 0 };
    // The URCap acknowledges a SET with the three bytes `ack` and no newline (Robotiq's own URCap
    // script reads 3 bytes; ur_rtde compares the reply to "ack"); every other reply is a line.
    this.server = new LineServer({
      reply: (line) => this.reply(line),
      frame: (reply) => (reply === 'ack' ? 'ack' : `${reply}\n`),
    });
  }

  static async start(options: VirtualGripperOptions = {}): Promise<VirtualGripper> {
    const g = new VirtualGripper(options);
    g.port = await g.server.listen(g.options.port, '127.0.0.1');
    return g;
  }

  // ---- fault injection --------------------------------------------------------------------

  injectFault(code: number): void {
    this.fault = code;
    if (code >= 0x0a) this.freeze();
  }

  setEmergencyStop(active: boolean): void {
    this.eStop = active;
  }

  /** The pusher slips out: the fingers carry on closing to the requested position. */
  dropPusher(): void {
    this.freeze();
    this.pusherPresent = false;
    this.startMotion();
  }

  insertPusher(): void {
    this.pusherPresent = true;
  }

  /**
   * Makes the world's fingers this gripper's (a gripper scene): commands move them, POS and OBJ
   * read them. `stroke` is the gap fully open (m), at POS 0.
   */
  attachFingers(drive: FingerDrive, stroke: number): void {
    this.fingers = { drive, stroke };
    const p = positionFor(drive.opening, stroke, this.options.positionRange);
    this.motion = { from: p, t0: this.now(), target: p, speed: 0, requested: p };
  }

  async stop(): Promise<void> {
    await this.server.close();
  }

  // ---- protocol ---------------------------------------------------------------------------

  private now(): number {
    return monotonicSeconds();
  }

  private get activationStatus(): number {
    if (this.regs.ACT !== 1 || this.activatedAt === undefined) return 0;
    return this.now() - this.activatedAt >= this.options.activationTime ? 3 : 1;
  }

  /** Where the fingers stop: at the pusher when closing onto it, else at the request. */
  private get stopPosition(): number {
    const { from, target } = this.motion;
    const contact = this.options.pusherContactPosition;
    if (this.pusherPresent && target > from && target >= contact && from <= contact) return contact;
    return target;
  }

  private get position(): number {
    if (this.fingers)
      return positionFor(this.fingers.drive.opening, this.fingers.stroke, this.options.positionRange);
    const { from, t0, speed } = this.motion;
    const end = this.stopPosition;
    const travelled = speed * (this.now() - t0);
    return end >= from ? Math.min(end, from + travelled) : Math.max(end, from - travelled);
  }

  private get objectStatus(): number {
    if (this.activationStatus !== 3 || this.regs.GTO !== 1) return 0;
    if (this.fingers) {
      const { drive, stroke } = this.fingers;
      const target = openingAt(this.motion.target, stroke, this.options.positionRange);
      if (Math.abs(drive.opening - target) <= FINGER_TOLERANCE) return 3;
      if (!drive.stalled) return 0;
      return target < drive.opening ? 2 : 1;
    }
    const p = this.position;
    const end = this.stopPosition;
    if (Math.abs(p - end) > 1e-9) return 0;
    if (end !== this.motion.target) return this.motion.target > this.motion.from ? 2 : 1;
    return 3;
  }

  private freeze(): void {
    const p = this.position;
    this.motion = { ...this.motion, from: p, t0: this.now(), target: p };
    this.fingers?.drive.moveTo(this.fingers.drive.opening, 0);
  }

  private startMotion(): void {
    if (this.fingers) {
      const { drive, stroke } = this.fingers;
      const { min, max } = ROBOTIQ_OPENING_SPEED;
      const target = this.heldTarget;
      this.motion = { from: this.position, t0: this.now(), target, speed: 0, requested: this.regs.POS! };
      drive.moveTo(
        openingAt(target, stroke, this.options.positionRange),
        min + ((max - min) * this.regs.SPE!) / 255,
      );
      return;
    }
    // Robotiq 2F-85: about 20..150 mm/s over 85 mm of travel (the range between the stops).
    const mmPerSecond = 20 + (130 * this.regs.SPE!) / 255;
    const { open, closed } = this.options.positionRange;
    this.motion = {
      from: this.position,
      t0: this.now(),
      target: this.heldTarget,
      speed: (mmPerSecond * (closed - open)) / 85,
      requested: this.regs.POS!,
    };
  }

  /** The requested position held within the mechanical stops: where the fingers can go. */
  private get heldTarget(): number {
    const { open, closed } = this.options.positionRange;
    return Math.min(Math.max(this.regs.POS!, open), closed);
  }

  private read(name: string): number | undefined {
    switch (name) {
      case 'STA':
        return this.activationStatus;
      case 'PRE':
        return this.regs.GTO === 1 ? this.motion.requested : 0;
      case 'OBJ':
        return this.objectStatus;
      case 'FLT':
        return this.fault;
      case 'POS':
        return Math.round(this.position);
      default:
        return this.regs[name];
    }
  }

  private write(name: string, value: number): void {
    this.regs[name] = value;
    if (name === 'ACT') {
      if (value === 0) {
        this.activatedAt = undefined;
        this.fault = 0;
        this.freeze();
      } else if (this.activatedAt === undefined) {
        this.activatedAt = this.now();
      }
    }
  }

  private reply(line: string): string {
    if (this.eStop) return '?';
    const words = line.trim().split(/\s+/);
    if (words[0] === 'GET' && words.length === 2) {
      const v = this.read(words[1]!);
      return v === undefined ? '?' : `${words[1]} ${v}`;
    }
    if (words[0] === 'SET' && words.length >= 3 && words.length % 2 === 1) {
      const pairs: [string, number][] = [];
      for (let i = 1; i < words.length; i += 2) {
        const value = Number(words[i + 1]);
        if (!WRITABLE.has(words[i]!) || !Number.isInteger(value) || value < 0 || value > 255) return '?';
        pairs.push([words[i]!, value]);
      }
      for (const [k, v] of pairs) this.write(k, v);
      if (pairs.some(([k]) => k === 'GTO' || k === 'POS')) {
        if (this.regs.GTO === 1 && this.activationStatus !== 3) {
          this.fault = this.activationStatus === 1 ? 0x05 : 0x07;
        } else if (this.regs.GTO === 1 && this.fault < 0x0a) {
          this.startMotion();
        }
      }
      return 'ack';
    }
    return '?';
  }
}
