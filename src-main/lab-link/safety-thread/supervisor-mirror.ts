/**
 * A run's supervisor as the main thread holds it: the Supervisor itself runs in the safety thread
 * (core.ts); this sends it the run's proposals and mirrors its state from the decisions it
 * reports. `command` answers at once from that mirror; a refusal arrives as a stop decision, as
 * the supervisor reports one. If the thread ends or stops answering, the run is stopped here with
 * the reason (the arm is already stopped: the thread's RTDE link went with it, and the control
 * program's watchdog stops the arm without a command).
 */
import { EventEmitter } from 'node:events';
import { monotonicSeconds } from '../../common/clock';
import type { PreflightReport } from '../../safety/preflight';
import { describeStop, type StopReason } from '../../safety/stop-reasons';
import type { Decision, SupervisorState } from '../../safety/supervisor';
import type { FromSafety, ToSafety } from './messages';

/** A command as the thread's supervisor sent it to the robot (the run's log records each). */
export interface SentCommand {
  kind: 'twist' | 'stop';
  seq: number | null;
  vx: number;
  vy: number;
  acceleration: number;
  yawRate?: number;
}

type Events = { decision: [Decision]; command: [SentCommand] };

/** Longest wait for the thread to confirm the arm is stopped at the end of a run, s. */
const SETTLE_WITHIN = 1;

export class SupervisorMirror extends EventEmitter<Events> {
  state: SupervisorState = 'disarmed';
  stopReason: StopReason | undefined;
  stoppedAt: number | undefined;
  private failure: string | undefined;
  /** Why the thread last refused a request of this run (an arm while armed, ...). */
  refusal: string | undefined;
  private pendingArm: ((armed: boolean) => void) | undefined;
  private nextStream = 1;
  private readonly streams = new Map<number, (ok: boolean) => void>();

  constructor(private readonly send: (m: ToSafety) => void) {
    super();
  }

  get active(): boolean {
    return this.state === 'armed' || this.state === 'running';
  }

  /** Asks the thread's supervisor to arm on `report`; resolves with its answer. */
  arm(report: PreflightReport): Promise<boolean> {
    if (this.failure !== undefined) return Promise.resolve(false);
    const answer = new Promise<boolean>((resolve) => {
      const settle = (armed: boolean): void => {
        this.off('decision', on);
        this.pendingArm = undefined;
        resolve(armed);
      };
      const on = (d: Decision): void => {
        if (d.kind === 'armed' || d.kind === 'arm-refused' || d.kind === 'stop') settle(d.kind === 'armed');
      };
      this.pendingArm = settle;
      this.on('decision', on);
    });
    this.send({ type: 'arm', report });
    return answer;
  }

  /** The thread refused a request of this run: an arm waiting for its answer is refused. */
  refused(message: string): void {
    this.refusal = message;
    this.pendingArm?.(false);
  }

  /**
   * Starts the armed run. The mirror says running at once (the thread's supervisor, armed, does
   * the same on this message), so the first proposal is not refused for a state in flight.
   */
  startRun(): void {
    if (this.state !== 'armed')
      throw new Error(`cannot start a run while ${this.state}: arm it with green pre-flight checks first`);
    this.state = 'running';
    this.send({ type: 'start-run' });
  }

  /** Proposes a table-frame velocity and yaw rate; false when the mirror says the run is not running. */
  command(vx: number, vy: number, yawRate = 0): boolean {
    if (this.state !== 'running') return false;
    this.send({ type: 'command', vx, vy, yawRate });
    return true;
  }

  /**
   * Proposes one control for `duration` s: the thread's supervisor sends it every `period` s and
   * then holds. Resolves true when it ran to its end, false when refused or stopped.
   */
  stream(vx: number, vy: number, yawRate: number, duration: number, period: number): Promise<boolean> {
    if (this.state !== 'running') return Promise.resolve(false);
    const id = this.nextStream++;
    const done = new Promise<boolean>((resolve) => this.streams.set(id, resolve));
    this.send({ type: 'stream', id, vx, vy, yawRate, duration, period });
    return done;
  }

  /** Proposes a gripper's finger motion (supervisor.ts commandFingers). */
  commandFingers(openingSpeed: number, duration: number): boolean {
    if (this.state !== 'running') return false;
    this.send({ type: 'fingers', openingSpeed, duration });
    return true;
  }

  hold(): void {
    this.send({ type: 'hold' });
  }

  abort(): void {
    this.send({ type: 'abort' });
  }

  finish(outcome: string): void {
    this.send({ type: 'finish', outcome });
  }

  runFailed(detail: string): void {
    this.send({ type: 'run-failed', detail });
  }

  gripperFault(detail: string): void {
    this.send({ type: 'gripper-fault', detail });
  }

  pusherLost(detail: string): void {
    this.send({ type: 'pusher-lost', detail });
  }

  /** After a stop has been reviewed: back to disarmed, as the thread's supervisor does on this message. */
  reset(): void {
    if (this.state !== 'stopped') return;
    this.state = 'disarmed';
    this.send({ type: 'reset' });
  }

  /** Resolves once the thread reports the supervisor inactive (stopped or never armed), or after SETTLE_WITHIN. */
  settled(): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.off('decision', on);
        resolve();
      };
      const on = (): void => {
        if (!this.active) done();
      };
      const timer = setTimeout(done, SETTLE_WITHIN * 1000);
      this.on('decision', on);
    });
  }

  /** A message from the thread about this run. */
  receive(m: Extract<FromSafety, { type: 'decision' | 'command' | 'streamed' }>): void {
    if (m.type === 'streamed') {
      const resolve = this.streams.get(m.id);
      this.streams.delete(m.id);
      resolve?.(m.ok);
      return;
    }
    if (m.type === 'command') {
      const { type: _, ...command } = m;
      this.emit('command', command);
      return;
    }
    this.state = m.state;
    this.stopReason = m.stopReason;
    this.stoppedAt = m.stoppedAt;
    this.emit('decision', m.decision);
  }

  /** The thread ended or stopped answering: the run stops with that reason (fail safe). */
  threadFailed(detail: string): void {
    this.failure ??= detail;
    for (const resolve of this.streams.values()) resolve(false);
    this.streams.clear();
    this.pendingArm?.(false);
    if (!this.active) return;
    const reason: StopReason = { code: 'safety-thread', detail };
    this.state = 'stopped';
    this.stopReason = reason;
    this.stoppedAt = monotonicSeconds();
    this.emit('decision', { kind: 'stop', at: this.stoppedAt, reason, message: describeStop(reason) });
  }
}
