/**
 * The safety supervisor: the only path from the planner to the robot. The planner proposes a
 * pusher velocity; the supervisor checks it and sends it, or refuses and stops the arm.
 *
 * States: disarmed -> (pre-flight all green) armed -> running -> stopped(reason).
 * Any stop reason in armed or running sends a stop to the robot first and only then reports: the
 * stop command goes out on the same call stack that detected the problem.
 *
 * Watchdogs (tick() every few ms, and on every input): motion capture older than the limit (a
 * frame number that does not advance ages like a missing frame: see scene-binding) or a bound
 * body untracked; robot protective or emergency stop, a safety mode other than NORMAL or
 * REDUCED, the control program not playing, a lost or silent robot link; a command stream that
 * stalls while the arm moves. If this process stalls as a whole, the controller-side program stops
 * the arm by its own watchdog.
 */
import { EventEmitter } from 'node:events';
import { monotonicSeconds } from '../contract/time';
import type { BodyEstimate, PlanarPoses } from '../mocap/scene-binding';
import type { RobotState } from '../robot/robot-state';
import { programPlaying } from '../robot/robot-state';
import { STOP_DECELERATION } from '../robot/control-program';
import type { PreflightReport } from './preflight';
import { describeStop, type StopReason } from './stop-reasons';
import { checkMotion, type Workspace } from './workspace';

export interface SupervisedRobot {
  readonly latest: RobotState | undefined;
  /** Tool twist in the base frame (m/s); returns the command's sequence number. */
  sendTwist(vx: number, vy: number, acceleration: number): number;
  stop(acceleration?: number): number | undefined;
}

/** Where the pusher is and how table-frame velocities map to the robot base frame. */
export interface ToolFrame {
  /** Pusher axis in the table frame (x, y) and the tool height above the table (z), from the TCP pose. */
  pusherInTable(tcpPose: readonly number[]): { x: number; y: number; z: number };
  /** Table-frame velocity -> base-frame velocity. */
  tableToBase(vx: number, vy: number): [number, number];
}

export interface SupervisorOptions {
  robot: SupervisedRobot;
  frame: ToolFrame;
  workspace: Workspace;
  maxSpeed: number;
  /**
   * Linear acceleration of motion commands, m/s^2. Stops and holds use STOP_DECELERATION: how
   * fast the arm stands still must not depend on a setup file.
   */
  acceleration: number;
  /** A command is checked on where it takes the pusher within this time, s. */
  lookahead?: number;
  /** Motion capture older than this stops the arm, s. */
  mocapMaxAge?: number;
  /** A robot state older than this stops the arm, s. */
  robotStateMaxAge?: number;
  /** While the arm moves, commands must keep coming at least this often, s. */
  commandMaxGap?: number;
  /** Monotonic clock, s (the clock of RobotState.receivedAt). */
  now?: () => number;
}

export type SupervisorState = 'disarmed' | 'armed' | 'running' | 'stopped';

/** A supervisor decision; `at` is the supervisor's clock (monotonic, s). */
export type Decision =
  | { kind: 'armed'; at: number }
  | { kind: 'arm-refused'; at: number; failed: string[] }
  | { kind: 'run-started'; at: number }
  | { kind: 'stop'; at: number; reason: StopReason; message: string }
  | { kind: 'command-refused'; at: number; reason: StopReason; message: string }
  | { kind: 'disarmed'; at: number };

type Events = { decision: [Decision] };

export class Supervisor extends EventEmitter<Events> {
  state: SupervisorState = 'disarmed';
  stopReason: StopReason | undefined;
  stoppedAt: number | undefined;
  private readonly o: Required<Omit<SupervisorOptions, 'robot' | 'frame' | 'workspace'>> &
    Pick<SupervisorOptions, 'robot' | 'frame' | 'workspace'>;
  private lastMocapOk: number | undefined;
  /** Frame number of the latest poses. */
  private lastFrameNumber: number | undefined;
  /** A body whose latest frame repeated its number or its pose (a frozen stream), if any. */
  private repeatedBody: BodyEstimate | undefined;
  private lastCommandAt: number | undefined;
  private moving = false;

  constructor(options: SupervisorOptions) {
    super();
    this.o = {
      lookahead: 0.2,
      mocapMaxAge: 0.1,
      robotStateMaxAge: 0.1,
      // The controller-side watchdog's own timeout: a loop that misses it has stalled.
      commandMaxGap: 0.1,
      now: monotonicSeconds,
      ...options,
    };
  }

  get active(): boolean {
    return this.state === 'armed' || this.state === 'running';
  }

  arm(report: PreflightReport): boolean {
    const at = this.o.now();
    if (this.active) return true;
    if (!report.ok) {
      this.emit('decision', {
        kind: 'arm-refused',
        at,
        failed: report.checks.filter((c) => !c.ok).map((c) => `${c.label}: ${c.reason}`),
      });
      return false;
    }
    this.state = 'armed';
    this.stopReason = undefined;
    this.lastMocapOk = at;
    this.emit('decision', { kind: 'armed', at });
    return true;
  }

  startRun(): void {
    if (this.state !== 'armed')
      throw new Error(`cannot start a run while ${this.state}: arm it with green pre-flight checks first`);
    this.state = 'running';
    this.emit('decision', { kind: 'run-started', at: this.o.now() });
  }

  /** Proposes a table-frame pusher velocity. Returns false (and the arm is stopped) when refused. */
  command(vx: number, vy: number): boolean {
    if (this.state !== 'running') return false;
    const at = this.o.now();
    const speed = Math.hypot(vx, vy);
    if (!Number.isFinite(speed) || speed > this.o.maxSpeed * (1 + 1e-9)) {
      this.refuse(
        { code: 'speed-limit', speed: Number.isFinite(speed) ? speed : Infinity, limit: this.o.maxSpeed },
        at,
      );
      return false;
    }
    const robot = this.o.robot.latest;
    if (!robot) {
      this.halt({ code: 'robot-state-stale', age: Infinity });
      return false;
    }
    const problem = checkMotion(
      this.o.workspace,
      this.o.frame.pusherInTable(robot.tcpPose),
      { vx, vy },
      this.o.lookahead,
    );
    if (problem) {
      this.refuse({ code: 'workspace', detail: problem }, at);
      return false;
    }
    const [bx, by] = this.o.frame.tableToBase(vx, vy);
    this.o.robot.sendTwist(bx, by, this.o.acceleration);
    this.lastCommandAt = at;
    this.moving = speed > 0;
    return true;
  }

  /** Stands still between controls (while the planner thinks); the run continues. */
  hold(): void {
    if (this.state !== 'running') return;
    this.o.robot.stop(STOP_DECELERATION);
    this.moving = false;
    this.lastCommandAt = this.o.now();
  }

  abort(): void {
    this.halt({ code: 'operator-abort' });
  }

  /** The run ended by itself (success, failure or limit): stop and report the outcome. */
  finish(outcome: string): void {
    this.halt({ code: 'task-ended', outcome });
  }

  /** After a stop has been reviewed: back to disarmed (a new run needs fresh checks). */
  reset(): void {
    if (this.state !== 'stopped') return;
    this.state = 'disarmed';
    this.emit('decision', { kind: 'disarmed', at: this.o.now() });
  }

  updateMocap(poses: PlanarPoses): void {
    const at = this.o.now();
    this.lastFrameNumber = poses.frameNumber;
    this.repeatedBody = [poses.pusher, ...poses.sliders].find((b) => b.repeated !== null);
    if (poses.ok) {
      this.lastMocapOk = at;
      return;
    }
    if (!this.active) return;
    const bodies = [poses.pusher, ...poses.sliders];
    const untracked = bodies.find((b) => b.status === 'untracked' || b.status === 'missing');
    if (untracked) {
      this.halt({ code: 'mocap-untracked', body: untracked.rigidBody ?? 'unnamed body' });
      return;
    }
    const stale = bodies.find((b) => b.status === 'stale');
    if (stale?.repeated) this.halt(frozen(stale, poses.frameNumber, stale.ageS));
    else if (stale)
      this.halt({ code: 'mocap-stale', body: stale.rigidBody ?? 'unnamed body', age: stale.ageS });
  }

  updateRobot(s: RobotState): void {
    if (!this.active) return;
    const reason = robotStopReason(s);
    if (reason) this.halt(reason);
  }

  robotLinkLost(message: string): void {
    this.halt({ code: 'robot-link-lost', message });
  }

  pusherLost(detail: string): void {
    this.halt({ code: 'pusher-lost', detail });
  }

  /** Periodic watchdog; call every few milliseconds. */
  tick(): void {
    if (!this.active) return;
    const now = this.o.now();
    if (this.lastMocapOk !== undefined && now - this.lastMocapOk > this.o.mocapMaxAge) {
      const age = now - this.lastMocapOk;
      this.halt(
        this.repeatedBody && this.lastFrameNumber !== undefined
          ? frozen(this.repeatedBody, this.lastFrameNumber, age)
          : { code: 'mocap-stale', body: 'all bodies', age },
      );
      return;
    }
    const robot = this.o.robot.latest;
    if (robot && now - robot.receivedAt > this.o.robotStateMaxAge) {
      this.halt({ code: 'robot-state-stale', age: now - robot.receivedAt });
      return;
    }
    if (
      this.state === 'running' &&
      this.moving &&
      this.lastCommandAt !== undefined &&
      now - this.lastCommandAt > this.o.commandMaxGap
    ) {
      this.halt({ code: 'loop-stalled', age: now - this.lastCommandAt });
    }
  }

  /** Stop the arm for a reason; the stop goes to the robot before anything else happens. */
  private halt(reason: StopReason): void {
    if (!this.active) return;
    this.o.robot.stop(STOP_DECELERATION);
    this.moving = false;
    this.state = 'stopped';
    this.stopReason = reason;
    this.stoppedAt = this.o.now();
    this.emit('decision', { kind: 'stop', at: this.stoppedAt, reason, message: describeStop(reason) });
  }

  private refuse(reason: StopReason, at: number): void {
    this.emit('decision', { kind: 'command-refused', at, reason, message: describeStop(reason) });
    this.halt(reason);
  }
}

/** The stop reason for a stale body whose frames or poses kept repeating. */
function frozen(body: BodyEstimate, frameNumber: number, age: number): StopReason {
  return {
    code: 'mocap-frozen',
    body: body.rigidBody ?? 'unnamed body',
    repeated: body.repeated ?? 'frame',
    frameNumber,
    age,
  };
}

export function robotStopReason(s: RobotState): StopReason | undefined {
  const ss = s.safetyStatus;
  if (ss.emergencyStopped || ss.systemEmergencyStopped || ss.robotEmergencyStopped)
    return { code: 'emergency-stop' };
  if (ss.protectiveStopped || s.safetyMode === 'PROTECTIVE_STOP') return { code: 'protective-stop' };
  if (s.safetyMode !== 'NORMAL' && s.safetyMode !== 'REDUCED')
    return { code: 'safety-fault', mode: s.safetyMode };
  if (!programPlaying(s)) return { code: 'program-stopped', runtimeState: s.runtimeState };
  return undefined;
}
