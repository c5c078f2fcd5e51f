/**
 * The UR5 as the supervisor sees it: one object that connects (RTDE + control program), streams
 * typed state, sends tool twists and stops, and survives link loss.
 *
 * Safety properties it keeps:
 * - Motion commands are never repeated on its own: a twist is written once, when sendTwist is
 *   called. If the caller stops calling, the control program's watchdog stops the arm.
 * - Only stops are refreshed (keep-alive), so an idle arm stays armed and nothing else moves it.
 *   A twist older than the program's watchdog timeout is replaced by a stop: the program has
 *   stopped the arm by then, and the stops keep its RTDE watchdog fed, so a caller that pauses
 *   (a slow planning step) leaves the arm stopped and the program running, not halted.
 * - The program is sent as the controller expects (robot/script-connection.ts) and counts as sent
 *   only once the controller runs it: a program that does not run is ProgramNotRunningError.
 * - A lost link (socket closed, or no state for `staleAfter`) is reported at once; reconnecting
 *   sets up RTDE again and writes a stop, never a motion. The program re-arms on that stop.
 */
import { EventEmitter } from 'node:events';
import { MIN_COMMAND_ACCELERATION, STOP_YAW_DECELERATION } from '#contract/safety-limits';
import { monotonicSeconds } from '../common/clock';
import {
  controlProgramSettingsSchema,
  maxStopDuration,
  renderControlProgram,
  type ControlProgramSettings,
  type ControlProgramSettingsInput,
} from './control-program';
import type { FlangeLoadInput } from '#contract/flange-load';
import { inputsHeld, inputsHeldNotice, refuseUnsupportedController } from './controller-support';
import { CommandCode, COMMAND_INPUTS, nextSequence } from './registers';
import { decodeRobotState, programPlaying, STATE_OUTPUTS, type RobotState } from './robot-state';
import { maxFrequencyOf, RtdeClient, type ControllerVersion } from './rtde/client';
import type { ProtocolVersion, TextMessage } from './rtde/messages';
import type { Recipe } from './rtde/recipe';
import { ScriptConnection } from './script-connection';
import { every, sleep } from '../common/timers';
import { waitForState } from '../common/wait-for-state';

export interface Ur5ConnectionOptions {
  host: string;
  rtdePort?: number;
  /** 30002 (secondary) or 30003 (realtime). */
  scriptPort?: number;
  program?: ControlProgramSettingsInput;
  /** The flange load the program declares (set_payload, set_tcp): the setup's. */
  flangeLoad?: FlangeLoadInput;
  /**
   * How long to retry when the command inputs are IN_USE by a previous session the controller
   * still holds (its TCP connection not yet timed out after a pulled cable), s.
   */
  inputsHeldRetry?: number;
  /** Told what the connection waits for and why (inputs held by a previous session), in the operator's words. */
  onNotice?: (text: string) => void;
  /** Send the control program on the first connect (default true). After a reconnect it is sent only if it no longer runs. */
  sendProgramOnConnect?: boolean;
  /** Output frequency; default: 125 Hz for a CB3, 500 Hz for an e-Series. */
  frequency?: number;
  /** Interval of stop refreshes while idle, s (default: a quarter of the watchdog timeout). */
  keepAlive?: number;
  /** No state for this long counts as a lost link, s. */
  staleAfter?: number;
  /** Reconnect automatically after link loss (default true). */
  reconnect?: boolean;
  /** Wait before a reconnect attempt, s: doubled after each failure up to `max`. */
  reconnectDelay?: { initial: number; max: number };
  /** Connect, program start and reply timeout, s. */
  timeout?: number;
}

/** A turn of the tool about base z: yaw rate (rad/s) reached at `acceleration` (rad/s^2). */
export interface YawCommand {
  rate: number;
  acceleration: number;
}

/** What the pusher sends: no turn (the program holds the tool's orientation). */
const NO_TURN: YawCommand = { rate: 0, acceleration: STOP_YAW_DECELERATION };

export class LinkDownError extends Error {
  override name = 'LinkDownError';
}

/** The words pre-flight shows when a sent program did not start. */
export const PROGRAM_NOT_RUNNING = 'control program not running after upload';

/** The controller took the program's bytes but does not run it (Local mode, a refusal, a discard). */
export class ProgramNotRunningError extends Error {
  override name = 'ProgramNotRunningError';
}

type Events = {
  state: [RobotState];
  linkLost: [Error];
  linkRestored: [];
  /** A reconnect attempt failed; retries continue. */
  reconnectFailed: [Error];
  programSent: [];
  text: [TextMessage];
};

interface Link {
  client: RtdeClient;
  input: Recipe;
}

export class Ur5Connection extends EventEmitter<Events> {
  readonly settings: ControlProgramSettings;
  latest: RobotState | undefined;
  controllerVersion: ControllerVersion | undefined;
  protocolVersion: ProtocolVersion | undefined;
  frequency = 0;
  private link: Link | undefined;
  // Start away from whatever an earlier session left in the register.
  private seq = 1 + Math.floor(Math.random() * 1e9);
  private lastCommand: { code: number; acceleration: number; at: number } = {
    code: CommandCode.STOP,
    acceleration: 0,
    at: 0,
  };
  /** The open connection the program was sent on (kept open and read, as ur_rtde does). */
  private script: ScriptConnection | undefined;
  /** Why the last upload did not give a running program; undefined once one runs. */
  uploadProblem: string | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private staleCheck: NodeJS.Timeout | undefined;
  private closing = false;
  private reconnecting = false;
  private readonly opts: Required<
    Omit<Ur5ConnectionOptions, 'program' | 'frequency' | 'flangeLoad' | 'onNotice'>
  > & {
    frequency?: number;
    flangeLoad?: FlangeLoadInput;
    onNotice?: (text: string) => void;
  };

  private constructor(options: Ur5ConnectionOptions) {
    super();
    this.settings = controlProgramSettingsSchema.parse(options.program ?? {});
    this.lastCommand.acceleration = this.settings.stopAcceleration;
    this.opts = {
      rtdePort: 30004,
      scriptPort: 30002,
      sendProgramOnConnect: true,
      keepAlive: this.settings.watchdogTimeout / 4,
      staleAfter: 0.25,
      reconnect: true,
      reconnectDelay: { initial: 0.1, max: 2 },
      timeout: 2,
      // Within the safety thread's 15 s start: longer holds are retried by connecting again.
      inputsHeldRetry: 10,
      ...options,
    };
  }

  /** The controller's major software version, for rendering the program (e-Series when unknown). */
  private get target(): { controllerMajor: number } {
    return { controllerMajor: this.controllerVersion?.major ?? 5 };
  }

  /**
   * Connects RTDE and, unless told not to, sends the program. A program that does not start is
   * not a failed connect: `uploadProblem` says why, for pre-flight to show.
   */
  static async connect(options: Ur5ConnectionOptions): Promise<Ur5Connection> {
    const c = new Ur5Connection(options);
    await c.open();
    if (c.opts.sendProgramOnConnect) {
      await c.sendProgram().catch((err: unknown) => {
        if (!(err instanceof ProgramNotRunningError)) throw err;
      });
    }
    return c;
  }

  get linkUp(): boolean {
    return this.link !== undefined;
  }

  get lastSequence(): number {
    return this.seq;
  }

  /**
   * Writes one motion command: tool velocity (vx, vy) in the base frame, m/s, reached with
   * `acceleration` m/s^2, and a yaw rate about base z (a gripper's turn; none by default). Valid
   * for the program's watchdog timeout; call again to keep moving. Returns the command's sequence
   * number.
   */
  sendTwist(vx: number, vy: number, acceleration: number, yaw: YawCommand = NO_TURN): number {
    if (![vx, vy, acceleration].every(Number.isFinite) || acceleration <= 0) {
      throw new RangeError(`invalid twist command (${vx}, ${vy}) at ${acceleration} m/s^2`);
    }
    if (![yaw.rate, yaw.acceleration].every(Number.isFinite) || yaw.acceleration <= 0) {
      throw new RangeError(`invalid yaw command ${yaw.rate} rad/s at ${yaw.acceleration} rad/s^2`);
    }
    const link = this.link;
    if (!link) throw new LinkDownError('robot link is down: the arm is stopped by its watchdog');
    // The program trips on an acceleration outside its range: send one inside it.
    const s = this.settings;
    acceleration = Math.min(Math.max(acceleration, MIN_COMMAND_ACCELERATION), s.maxAcceleration);
    const turn = {
      rate: yaw.rate,
      acceleration: Math.min(Math.max(yaw.acceleration, MIN_COMMAND_ACCELERATION), s.maxYawAcceleration),
    };
    this.lastCommand = { code: CommandCode.SPEED, acceleration, at: monotonicSeconds() };
    return this.write(link, CommandCode.SPEED, vx, vy, acceleration, turn);
  }

  /**
   * Writes a stop (decelerating at `acceleration`) and keeps refreshing it. Never throws: with the
   * link down the program's watchdog has stopped the arm already. A stop is never softer than the
   * program's own watchdog stop (a tiny or invalid deceleration would stretch it over seconds).
   * Returns the sequence number, or undefined when nothing could be written.
   */
  stop(acceleration = this.settings.stopAcceleration): number | undefined {
    const floor = this.settings.stopAcceleration;
    acceleration = Number.isFinite(acceleration) ? Math.max(acceleration, floor) : floor;
    this.lastCommand = { code: CommandCode.STOP, acceleration, at: monotonicSeconds() };
    const link = this.link;
    return link ? this.write(link, CommandCode.STOP, 0, 0, acceleration, NO_TURN) : undefined;
  }

  /**
   * Sends (and so restarts) the control program and resolves once the controller runs it: the
   * runtime PLAYING with a heartbeat that started again (a new program counts from 0) and
   * advances. It starts stopped and waits for a re-arm; the twist is zeroed first so the
   * refreshed stop re-arms it and no old motion command is pending. Throws
   * ProgramNotRunningError when the program is not seen running within the timeout.
   */
  async sendProgram(): Promise<void> {
    this.stop();
    const before = this.latest;
    const oldHeartbeat = before && programPlaying(before) ? before.program.heartbeat : undefined;
    this.script?.close();
    this.script = undefined;
    const script = await ScriptConnection.open(this.opts.host, this.opts.scriptPort, this.opts.timeout);
    this.script = script;
    await script.send(renderControlProgram(this.settings, this.target, this.opts.flangeLoad));
    this.emit('programSent');
    try {
      const first = await this.waitForState(
        (s) => programPlaying(s) && (oldHeartbeat === undefined || s.program.heartbeat < oldHeartbeat),
        this.opts.timeout,
      );
      await this.waitForState(
        (s) => programPlaying(s) && s.program.heartbeat > first.program.heartbeat,
        this.opts.timeout,
      );
    } catch {
      const s = this.latest;
      const seen = s
        ? `robot ${s.robotMode}, safety ${s.safetyMode}, runtime ${s.runtimeState}`
        : 'no robot state';
      this.uploadProblem = `${PROGRAM_NOT_RUNNING} (${seen})`;
      throw new ProgramNotRunningError(this.uploadProblem);
    }
    this.uploadProblem = undefined;
  }

  /** Resolves with the first state (the latest included) that satisfies `predicate`. */
  waitForState(predicate: (s: RobotState) => boolean, timeout = this.opts.timeout): Promise<RobotState> {
    return waitForState(this, predicate, timeout, 'robot state');
  }

  async disconnect(): Promise<void> {
    this.closing = true;
    this.stop();
    this.dropLink();
    this.script?.close();
    this.script = undefined;
  }

  private write(
    link: Link,
    code: number,
    vx: number,
    vy: number,
    acceleration: number,
    yaw: YawCommand,
  ): number {
    this.seq = nextSequence(this.seq);
    link.client.send(link.input, [this.seq, code, vx, vy, acceleration, yaw.rate, yaw.acceleration]);
    return this.seq;
  }

  /**
   * Opens RTDE. Inputs held by a previous session (IN_USE after a pulled cable, until the
   * controller's side of that connection times out) are waited for: said once through `onNotice`,
   * retried until `inputsHeldRetry`, then the IN_USE error is thrown as it came.
   */
  private async open(): Promise<void> {
    const giveUpAt = monotonicSeconds() + this.opts.inputsHeldRetry;
    let said = false;
    for (;;) {
      try {
        await this.openOnce();
        return;
      } catch (err) {
        if (!inputsHeld(err) || monotonicSeconds() >= giveUpAt || this.closing) throw err;
        if (!said) {
          said = true;
          this.opts.onNotice?.(inputsHeldNotice(this.opts.inputsHeldRetry));
        }
        await sleep(0.25);
      }
    }
  }

  private async openOnce(): Promise<void> {
    this.latest = undefined;
    const client = await RtdeClient.connect({
      host: this.opts.host,
      port: this.opts.rtdePort,
      timeout: this.opts.timeout,
    });
    try {
      this.protocolVersion = await client.negotiateProtocol();
      this.controllerVersion = await client.controllerVersion();
      refuseUnsupportedController(this.controllerVersion);
      this.frequency = this.opts.frequency ?? maxFrequencyOf(this.controllerVersion);
      await client.setupOutputs(STATE_OUTPUTS, this.frequency);
      const input = await client.setupInputs(COMMAND_INPUTS);
      client.on('output', (p) => {
        this.latest = decodeRobotState(p.values, p.receivedAt);
        this.emit('state', this.latest);
      });
      client.on('text', (t) => this.emit('text', t));
      client.on('close', (err) => this.onLinkClosed(client, err));
      await client.start();
      this.link = { client, input };
    } catch (err) {
      client.close();
      throw err;
    }
    // A fresh link always begins with a stop: the program re-arms on it, nothing moves.
    this.stop();
    this.keepAlive = every(this.opts.keepAlive, () => {
      const last = this.lastCommand;
      if (last.code === CommandCode.STOP) this.stop(last.acceleration);
      // The program has stopped the arm on this twist by now: say so, and keep its watchdog fed.
      else if (monotonicSeconds() - last.at > this.settings.watchdogTimeout) this.stop();
    });
    const openedAt = monotonicSeconds();
    this.staleCheck = every(Math.max(0.01, this.opts.staleAfter / 4), () => {
      const last = Math.max(this.latest?.receivedAt ?? -Infinity, openedAt);
      if (this.link && monotonicSeconds() - last > this.opts.staleAfter) this.link.client.close();
    });
  }

  private dropLink(): void {
    clearInterval(this.keepAlive);
    clearInterval(this.staleCheck);
    const link = this.link;
    this.link = undefined;
    link?.client.close();
  }

  private onLinkClosed(client: RtdeClient, err: Error | undefined): void {
    if (this.link?.client !== client) return;
    this.dropLink();
    if (this.closing) return;
    this.emit('linkLost', err ?? new Error('RTDE link closed'));
    if (this.opts.reconnect) void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    let delay = this.opts.reconnectDelay.initial;
    while (!this.closing && !this.link) {
      await sleep(delay);
      if (this.closing) break;
      try {
        await this.open();
        const first = await this.waitForState(() => true);
        // A program in a stopl (the arm stopping when the link went) holds its heartbeat until the
        // arm stands still: it is alive if the heartbeat moves within the longest such stop.
        const within = maxStopDuration(this.settings, this.target) + 0.02;
        const alive = await this.waitForState(
          (s) => programPlaying(s) && s.program.heartbeat !== first.program.heartbeat,
          within,
        ).then(
          () => true,
          () => false,
        );
        // A program that does not start leaves the link up: pre-flight shows uploadProblem.
        if (!alive)
          await this.sendProgram().catch((e: unknown) => {
            if (!(e instanceof ProgramNotRunningError)) throw e;
          });
        this.emit('linkRestored');
      } catch (err) {
        this.dropLink();
        this.emit('reconnectFailed', err as Error);
        delay = Math.min(delay * 2, this.opts.reconnectDelay.max);
      }
    }
    this.reconnecting = false;
  }
}
