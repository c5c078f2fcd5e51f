/**
 * The safety supervisor: the only path from the planner to the robot. The planner proposes a
 * pusher velocity (or a gripper's velocity, yaw rate and finger motion); the supervisor checks it
 * and sends it, or refuses and stops the arm. A gripper's fingers are commanded through here too,
 * never by the run itself: a stopped supervisor sends them nothing.
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
import {
  BODY_SPEED_FACTOR,
  DRIFT_FRAMES,
  MAX_CALIBRATION_DRIFT,
  STOP_DECELERATION,
  STOP_REACTION,
  SUPERVISOR_DEFAULTS,
} from '#contract/safety-limits';
import { monotonicSeconds } from '../common/clock';
import type { BodyEstimate, PlanarPoses } from '../mocap/scene-binding';
import type { RobotState } from '../robot/robot-state';
import { programPlaying } from '../robot/robot-state';
import { LinkDownError } from '../robot/ur5-connection';
import type { PreflightReport } from './preflight';
import { describeStop, type StopReason } from './stop-reasons';
import { checkFootprintMotion, checkMotion, type Workspace } from './workspace';
import { tableRegion, type TableRegion } from '#contract/table-region';
import { pusherDrift } from './calibration-agreement';
import { pointGap, segmentGap, shapeGap, type PlacedShape, type SceneGuard } from './scene-guard';

export interface SupervisedRobot {
  readonly latest: RobotState | undefined;
  /**
   * Tool twist in the base frame (m/s) and, for a gripper, a yaw rate about base z (rad/s) with its
   * angular acceleration (rad/s^2); returns the command's sequence number. Throws LinkDownError
   * when the link is down.
   */
  sendTwist(
    vx: number,
    vy: number,
    acceleration: number,
    yaw?: { rate: number; acceleration: number },
  ): number;
  stop(acceleration?: number): number | undefined;
}

/** A gripper's fingers (the Robotiq behind its socket) as the supervisor drives them. */
export interface SupervisedFingers {
  /** The gap between the fingers as last measured (m), undefined before the first reading. */
  readonly opening: number | undefined;
  /** Starts one finger motion towards a gap of `opening` m at `speed` m/s; rejects when refused. */
  move(opening: number, speed: number): Promise<void>;
}

/**
 * What a tool with a hand (a gripper scene's parallel gripper: contract/end-effector) adds to the
 * supervision: it turns, has an extent and has fingers (the finger device's).
 */
export interface HandSupervision {
  /** Largest yaw rate (rad/s): the scene's, within the control program's cap. */
  maxYawRate: number;
  /** Angular acceleration of turning commands (rad/s^2). */
  yawAcceleration: number;
  /** Largest speed of the opening (m/s): the scene's, within the gripper's. */
  maxOpeningSpeed: number;
  /** Widest opening (m): finger targets are kept within [0, maxOpening]. */
  maxOpening: number;
  /** The gripper's outline in its own frame (x forward, m): all of it must stay in the workspace. */
  footprint: readonly { x: number; y: number }[];
  /** The gripper's yaw in the table frame (rad) from the tool pose. */
  yawInTable(tcpPose: readonly number[]): number;
  /** Base-frame tool twist that moves the grasp centre with (vx, vy) in the table frame while turning. */
  toolTwist(
    vx: number,
    vy: number,
    yawRate: number,
    tcpPose: readonly number[],
  ): { vx: number; vy: number; yawRate: number };
  fingers: SupervisedFingers;
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
  /** A tool with a hand (a gripper scene's); absent for a pusher, which never turns and has no fingers to drive. */
  hand?: HandSupervision;
  /**
   * The scene's obstacles, table top and objects (plain data: scene-guard.ts). Absent: no scene
   * limits beyond the workspace (unit tests of the other limits).
   */
  guard?: SceneGuard;
  /**
   * Largest distance between the pusher as motion capture sees it and as the robot's tool pose
   * (through the calibrations) places it, at rest (m); default MAX_CALIBRATION_DRIFT.
   */
  maxCalibrationDrift?: number;
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

/** What tracking noise and marker jitter can add to a body's move between two frames (m). */
const POSE_NOISE = 0.002;

/** An object this close to the robot (m) is taken to move with it (it is being pushed). */
const PUSH_RANGE = 0.01;

export type SupervisorState = 'disarmed' | 'armed' | 'running' | 'stopped';

/** A supervisor decision; `at` is the supervisor's clock (monotonic, s). */
export type Decision =
  | { kind: 'armed'; at: number }
  | { kind: 'arm-refused'; at: number; failed: string[] }
  | { kind: 'run-started'; at: number }
  | { kind: 'stop'; at: number; reason: StopReason; message: string }
  | { kind: 'command-refused'; at: number; reason: StopReason; message: string }
  | { kind: 'fingers'; at: number; opening: number; speed: number }
  | { kind: 'disarmed'; at: number };

type Events = { decision: [Decision] };

export class Supervisor extends EventEmitter<Events> {
  state: SupervisorState = 'disarmed';
  stopReason: StopReason | undefined;
  stoppedAt: number | undefined;
  private readonly o: Required<Omit<SupervisorOptions, 'robot' | 'frame' | 'workspace' | 'hand' | 'guard'>> &
    Pick<SupervisorOptions, 'robot' | 'frame' | 'workspace' | 'hand' | 'guard'>;
  private readonly table: TableRegion | undefined;
  private lastMocapOk: number | undefined;
  /** Frame number of the latest poses. */
  private lastFrameNumber: number | undefined;
  /** A body whose latest frame repeated its number or its pose (a frozen stream), if any. */
  private repeatedBody: BodyEstimate | undefined;
  private lastCommandAt: number | undefined;
  private moving = false;
  /** Consecutive frames on which motion capture and the robot disagreed on the pusher. */
  private driftFrames = 0;
  /** The table-frame velocity last commanded (m/s); zero while holding or stopped. */
  private velocity = { vx: 0, vy: 0 };
  /** Ends the control being streamed (stream()), if any. */
  private streamEnd: ((ok: boolean) => void) | undefined;
  /** The latest sign that motion capture may be spoofed, as the latest poses carried it. */
  private suspect: PlanarPoses['suspect'];
  /** Each body's latest measured pose while armed (table frame, m; local s), by rigid body. */
  private measured = new Map<string, { x: number; y: number; at: number }>();

  constructor(options: SupervisorOptions) {
    super();
    this.o = {
      ...SUPERVISOR_DEFAULTS,
      maxCalibrationDrift: MAX_CALIBRATION_DRIFT,
      now: monotonicSeconds,
      ...options,
    };
    this.table = options.guard && tableRegion(options.guard.table);
  }

  get active(): boolean {
    return this.state === 'armed' || this.state === 'running';
  }

  arm(report: PreflightReport): boolean {
    const at = this.o.now();
    if (this.active) return true;
    // The checks were judged on the main thread; a sign seen here since is judged here.
    const suspect = this.suspect && `Motion capture: may be spoofed: ${this.suspect.detail}`;
    if (!report.ok || suspect) {
      this.emit('decision', {
        kind: 'arm-refused',
        at,
        failed: [
          ...report.checks.filter((c) => !c.ok).map((c) => `${c.label}: ${c.reason}`),
          ...(suspect ? [suspect] : []),
        ],
      });
      return false;
    }
    this.measured.clear();
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

  /**
   * Proposes a table-frame velocity of the pusher (or of a gripper's grasp centre) and a yaw rate
   * (rad/s; a gripper's only, a pusher's limit is 0). Returns false (and the arm is stopped) when
   * refused.
   */
  command(vx: number, vy: number, yawRate = 0): boolean {
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
    const g = this.o.hand;
    const maxYawRate = g?.maxYawRate ?? 0;
    if (!Number.isFinite(yawRate) || Math.abs(yawRate) > maxYawRate * (1 + 1e-9)) {
      const rate = Number.isFinite(yawRate) ? Math.abs(yawRate) : Infinity;
      this.refuse({ code: 'yaw-rate-limit', rate, limit: maxYawRate }, at);
      return false;
    }
    const robot = this.o.robot.latest;
    if (!robot) {
      this.halt({ code: 'robot-state-stale', age: Infinity });
      return false;
    }
    // The command judges its inputs itself: the watchdog tick may run late, and a NaN passes
    // every comparison that is not written to fail it.
    const inputs = this.inputsProblem(robot, at);
    if (inputs) {
      this.halt(inputs);
      return false;
    }
    const tool = this.o.frame.pusherInTable(robot.tcpPose);
    const problem = g
      ? checkFootprintMotion(
          this.o.workspace,
          { ...tool, yaw: g.yawInTable(robot.tcpPose) },
          { vx, vy, yawRate },
          this.o.lookahead,
          g.footprint,
        )
      : checkMotion(this.o.workspace, tool, { vx, vy }, this.o.lookahead);
    if (problem) {
      this.refuse({ code: 'workspace', detail: problem }, at);
      return false;
    }
    const near = this.lookaheadObstacle(tool, robot.tcpPose, vx, vy, yawRate);
    if (near) {
      this.refuse(near, at);
      return false;
    }
    try {
      if (g) {
        const t = g.toolTwist(vx, vy, yawRate, robot.tcpPose);
        this.o.robot.sendTwist(t.vx, t.vy, this.o.acceleration, {
          rate: t.yawRate,
          acceleration: g.yawAcceleration,
        });
      } else {
        const [bx, by] = this.o.frame.tableToBase(vx, vy);
        this.o.robot.sendTwist(bx, by, this.o.acceleration);
      }
    } catch (err) {
      // The link can drop between its last state and this command, before its loss is reported:
      // the controller's watchdog stops the arm, and the run stops here with the reason.
      if (!(err instanceof LinkDownError)) throw err;
      this.robotLinkLost(err.message);
      return false;
    }
    this.lastCommandAt = at;
    this.moving = speed > 0 || yawRate !== 0;
    this.velocity = { vx, vy };
    return true;
  }

  /**
   * Proposes a finger motion of a gripper: the opening changing at `openingSpeed` (m/s, negative
   * closes) for `duration` s, sent to the gripper as one move towards the gap it leads to (within
   * 0 and the widest opening) at that speed. A zero speed sends nothing: the fingers keep their
   * last target. Returns false (and the arm is stopped) when refused; false without a stop when
   * the run is not running, so a stopped run never reaches the gripper.
   */
  commandFingers(openingSpeed: number, duration: number): boolean {
    const g = this.o.hand;
    if (!g) throw new Error('finger commands need a gripper scene: this run supervises a pusher');
    if (this.state !== 'running') return false;
    const at = this.o.now();
    const speed = Math.abs(openingSpeed);
    if (!Number.isFinite(speed) || speed > g.maxOpeningSpeed * (1 + 1e-9)) {
      this.refuse(
        {
          code: 'opening-speed-limit',
          speed: Number.isFinite(speed) ? speed : Infinity,
          limit: g.maxOpeningSpeed,
        },
        at,
      );
      return false;
    }
    if (speed === 0) return true;
    const now = g.fingers.opening;
    if (now === undefined) {
      this.halt({ code: 'gripper-fault', detail: 'no measured opening to command the fingers from' });
      return false;
    }
    const opening = Math.min(Math.max(now + openingSpeed * duration, 0), g.maxOpening);
    this.emit('decision', { kind: 'fingers', at, opening, speed });
    g.fingers.move(opening, speed).catch((err: Error) => this.gripperFault(err.message));
    return true;
  }

  /**
   * Streams one control: proposes (vx, vy, yawRate) now and every `period` s for `duration` s,
   * each refresh judged like any command, then holds. Resolves true when it ran to its end, false
   * when refused or stopped (a stop ends it at once). A new stream ends the one before. Paced on
   * the timers' clock, which `now` (decision times and ages) need not be.
   */
  stream(vx: number, vy: number, yawRate: number, duration: number, period: number): Promise<boolean> {
    this.streamEnd?.(false);
    return new Promise((resolve) => {
      const end = monotonicSeconds() + duration;
      let timer: NodeJS.Timeout | undefined;
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        if (this.streamEnd === finish) this.streamEnd = undefined;
        resolve(ok);
      };
      this.streamEnd = finish;
      const step = (): void => {
        const left = end - monotonicSeconds();
        if (left <= 0) {
          this.hold();
          return finish(this.state === 'running');
        }
        let sent: boolean;
        try {
          sent = this.command(vx, vy, yawRate);
        } catch (err) {
          // Thrown on a timer, nobody would see it: the run stops with it instead.
          this.runFailed((err as Error).message);
          sent = false;
        }
        if (!sent) return finish(false);
        timer = setTimeout(step, Math.min(period, left) * 1000);
      };
      step();
    });
  }

  /** Stands still between controls (while the planner thinks); the run continues. */
  hold(): void {
    if (this.state !== 'running') return;
    this.o.robot.stop(STOP_DECELERATION);
    this.moving = false;
    this.velocity = { vx: 0, vy: 0 };
    this.lastCommandAt = this.o.now();
  }

  abort(): void {
    this.halt({ code: 'operator-abort' });
  }

  /** The run ended by itself (success, failure or limit): stop and report the outcome. */
  finish(outcome: string): void {
    this.halt({ code: 'task-ended', outcome });
  }

  /**
   * The run failed by itself (an error thrown by planning or the loop): stop with that reason, not
   * as the operator's abort. A no-op once stopped.
   */
  runFailed(detail: string): void {
    this.halt({ code: 'run-error', detail });
  }

  /** After a stop has been reviewed: back to disarmed (a new run needs fresh checks). */
  reset(): void {
    if (this.state !== 'stopped') return;
    this.state = 'disarmed';
    this.emit('decision', { kind: 'disarmed', at: this.o.now() });
  }

  updateMocap(poses: PlanarPoses): void {
    const at = this.o.now();
    const bodies = [poses.pusher, ...poses.sliders];
    const nonFinite = bodies.find((b) => b.pose && !Object.values(b.pose).every(Number.isFinite));
    if (nonFinite) {
      // Never fresh: the last good frame keeps ageing while poses are not numbers.
      this.halt({
        code: 'non-finite',
        source: 'motion-capture pose',
        detail: `${nonFinite.rigidBody ?? 'unnamed body'} at (${nonFinite.pose!.x}, ${nonFinite.pose!.y}, ${nonFinite.pose!.theta})`,
      });
      return;
    }
    this.lastFrameNumber = poses.frameNumber;
    this.repeatedBody = bodies.find((b) => b.repeated !== null);
    this.suspect = poses.suspect;
    if (this.active) {
      const spoofed = poses.suspect
        ? ({ code: 'mocap-suspect', sign: poses.suspect.kind, detail: poses.suspect.detail } as const)
        : this.poseJump(bodies);
      if (spoofed) {
        this.halt(spoofed);
        return;
      }
      const scene = this.sceneProblem(poses);
      if (scene) {
        this.halt(scene);
        return;
      }
    }
    if (poses.ok) {
      // As old as its oldest pose, not as new as this call: a dropped (out-of-order) frame comes
      // back as the last poses aged to its arrival, and must not make them look fresh.
      const ages = bodies.filter((b) => b.status !== 'unbound').map((b) => b.age);
      this.lastMocapOk = at - Math.max(0, ...ages);
      return;
    }
    if (!this.active) return;
    const untracked = bodies.find((b) => b.status === 'untracked' || b.status === 'missing');
    if (untracked) {
      this.halt({ code: 'mocap-untracked', body: untracked.rigidBody ?? 'unnamed body' });
      return;
    }
    const stale = bodies.find((b) => b.status === 'stale');
    if (stale?.repeated) this.halt(frozen(stale, poses.frameNumber, stale.age));
    else if (stale)
      this.halt({ code: 'mocap-stale', body: stale.rigidBody ?? 'unnamed body', age: stale.age });
  }

  /**
   * A body whose newly measured pose moved farther since its last one than anything on the table
   * can while armed (BODY_SPEED_FACTOR x the speed limit), or undefined. Frames can arrive
   * bunched, so the time between two measurements is their arrival gap plus the staleness limit
   * (a frame later than that has stopped the run already).
   */
  private poseJump(bodies: BodyEstimate[]): StopReason | undefined {
    const speed = BODY_SPEED_FACTOR * this.o.maxSpeed;
    for (const b of bodies) {
      if (!b.rigidBody || !b.pose || b.poseTime === null) continue;
      const last = this.measured.get(b.rigidBody);
      if (last && last.at === b.poseTime) continue;
      this.measured.set(b.rigidBody, { x: b.pose.x, y: b.pose.y, at: b.poseTime });
      if (!last) continue;
      const moved = Math.hypot(b.pose.x - last.x, b.pose.y - last.y);
      const dt = b.poseTime - last.at;
      if (moved > speed * (dt + this.o.mocapMaxAge) + POSE_NOISE)
        return {
          code: 'mocap-suspect',
          sign: 'pose-jump',
          detail: `${b.rigidBody} moved ${(moved * 1000).toFixed(0)} mm in ${(dt * 1000).toFixed(0)} ms, faster than anything on the table can (${speed.toFixed(2)} m/s)`,
        };
    }
    return undefined;
  }

  updateRobot(s: RobotState): void {
    if (!this.active) return;
    const reason = robotStopReason(s) ?? nonFiniteRobot(s);
    if (reason) this.halt(reason);
  }

  robotLinkLost(message: string): void {
    this.halt({ code: 'robot-link-lost', message });
  }

  pusherLost(detail: string): void {
    this.halt({ code: 'pusher-lost', detail });
  }

  /** The gripper of a gripper scene faulted, lost its link or refused a command. */
  gripperFault(detail: string): void {
    this.halt({ code: 'gripper-fault', detail });
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
    if (robot && !(now - robot.receivedAt <= this.o.robotStateMaxAge)) {
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

  /** Why a command may not go out on these inputs (robot state, motion capture), or undefined. */
  private inputsProblem(robot: RobotState, now: number): StopReason | undefined {
    const robotAge = now - robot.receivedAt;
    if (!(robotAge <= this.o.robotStateMaxAge)) return { code: 'robot-state-stale', age: robotAge };
    const bad = nonFiniteRobot(robot);
    if (bad) return bad;
    const mocapAge = this.lastMocapOk === undefined ? Infinity : now - this.lastMocapOk;
    if (!(mocapAge <= this.o.mocapMaxAge))
      return this.repeatedBody && this.lastFrameNumber !== undefined
        ? frozen(this.repeatedBody, this.lastFrameNumber, mocapAge)
        : { code: 'mocap-stale', body: 'all bodies', age: mocapAge };
    return undefined;
  }

  /**
   * The obstacle a command would take the tool within the clearance of, over the lookahead, or
   * undefined. Within the clearance already (after a push that brought it there), only a command
   * that takes it farther away passes.
   */
  private lookaheadObstacle(
    tool: { x: number; y: number },
    tcpPose: readonly number[],
    vx: number,
    vy: number,
    yawRate: number,
  ): StopReason | undefined {
    const guard = this.o.guard;
    if (!guard || guard.obstacles.length === 0) return undefined;
    const t = this.o.lookahead;
    const end = { x: tool.x + vx * t, y: tool.y + vy * t };
    const body = guard.robot ?? { radius: 0, outline: [] };
    for (const o of guard.obstacles) {
      let now: number;
      let along: number;
      let after: number;
      if (body.outline.length > 0) {
        // An outline is judged at its corners along the motion (a turn moves them on arcs).
        const yaw = this.yawAt(tcpPose);
        const gapAt = (s: number): number => {
          const th = yaw + yawRate * s;
          const c = Math.cos(th);
          const sn = Math.sin(th);
          const cx = tool.x + vx * s;
          const cy = tool.y + vy * s;
          return Math.min(
            ...body.outline.map((p) => pointGap(o, cx + c * p.x - sn * p.y, cy + sn * p.x + c * p.y)),
          );
        };
        now = gapAt(0);
        after = gapAt(t);
        along = Math.min(gapAt(t / 2), after);
      } else {
        // A disc about the tool point sweeps a straight segment.
        const r = body.radius;
        now = pointGap(o, tool.x, tool.y) - r;
        after = pointGap(o, end.x, end.y) - r;
        along = segmentGap(o, tool, end) - r;
      }
      if (!(along >= guard.clearance) && !(after > now))
        return { code: 'obstacle-clearance', obstacle: o.id, gap: along, clearance: guard.clearance };
    }
    return undefined;
  }

  /**
   * What the latest poses show against the scene: the pusher (or gripper) or an object touching an
   * obstacle, an object off the table, motion capture and the robot disagreeing on the pusher.
   */
  private sceneProblem(poses: PlanarPoses): StopReason | undefined {
    const robot = this.o.robot.latest;
    const frame = this.o.frame;
    const fresh = (b: BodyEstimate): boolean => b.status === 'ok' && b.pose !== null;
    if (robot && fresh(poses.pusher) && poses.pusher.repeated === null) {
      const d = pusherDrift(poses.pusher.pose!, robot, frame, this.o.maxCalibrationDrift);
      this.driftFrames = d.drift <= d.limit ? 0 : this.driftFrames + 1;
      if (this.driftFrames >= DRIFT_FRAMES)
        return { code: 'calibration-drift', drift: d.drift, limit: d.limit };
    }
    const guard = this.o.guard;
    if (!guard) return undefined;
    const body = guard.robot ?? { name: 'pusher', radius: 0, outline: [] };
    const at = fresh(poses.pusher)
      ? { ...poses.pusher.pose!, yaw: poses.pusher.pose!.theta }
      : robot && { ...frame.pusherInTable(robot.tcpPose), yaw: this.yawAt(robot.tcpPose) };
    if (at) {
      for (const o of guard.obstacles) {
        const c = Math.cos(at.yaw);
        const s = Math.sin(at.yaw);
        const gap =
          body.outline.length > 0
            ? Math.min(
                ...body.outline.map((p) => pointGap(o, at.x + c * p.x - s * p.y, at.y + s * p.x + c * p.y)),
              )
            : pointGap(o, at.x, at.y) - body.radius;
        if (!(gap > 0)) return { code: 'obstacle-contact', body: body.name, obstacle: o.id, gap };
      }
    }
    for (const b of poses.sliders) {
      const shape = guard.sliders.find((s) => s.id === b.id)?.shape;
      if (!shape || !fresh(b)) continue;
      const p = b.pose!;
      const pushed = at !== undefined && this.nearRobot({ shape, ...p }, at);
      const margin = (gap: (x: number, y: number) => number): number =>
        pushed ? this.stoppingMargin(gap, p) : 0;
      for (const o of guard.obstacles) {
        const gap = (x: number, y: number): number => shapeGap({ shape, x, y, theta: p.theta }, o);
        const g = gap(p.x, p.y);
        if (!(g > margin(gap))) return { code: 'obstacle-contact', body: b.id, obstacle: o.id, gap: g };
      }
      // The edge's distance, positive on the table: its margin is taken like an obstacle's gap.
      const edge = (x: number, y: number): number => -this.table!.excess(x, y);
      const e = edge(p.x, p.y);
      if (!(e > margin(edge))) return { code: 'off-table', body: b.id, excess: -e };
    }
    return undefined;
  }

  /**
   * Whether the robot at `at` touches or nearly touches an object (within PUSH_RANGE), so that it
   * moves with the commanded velocity. A gripper counts an object within its reach of the grasp
   * centre: its footprint is a set of corners, and an object can touch an edge between them.
   */
  private nearRobot(object: PlacedShape, at: { x: number; y: number }): boolean {
    const body = this.o.guard?.robot;
    const reach = body ? body.radius + Math.max(0, ...body.outline.map((p) => Math.hypot(p.x, p.y))) : 0;
    return pointGap(object, at.x, at.y) - reach < PUSH_RANGE;
  }

  /** The tool's yaw in the table frame: a turning tool's from the tool pose, else 0. */
  private yawAt(tcpPose: readonly number[]): number {
    return this.o.hand?.yawInTable(tcpPose) ?? 0;
  }

  /**
   * How close an object may come to something before the arm must stop (m): what the commanded
   * motion covers towards it while a stop takes effect (STOP_REACTION) and while the arm brakes at
   * STOP_DECELERATION. Only the approach counts: an object pushed along a wall or an edge keeps
   * its distance. A pushed object stops with the pusher (the table's friction decelerates it
   * faster than the arm brakes). `gap` is the distance function, differentiated here.
   */
  private stoppingMargin(gap: (x: number, y: number) => number, at: { x: number; y: number }): number {
    const { vx, vy } = this.velocity;
    if (vx === 0 && vy === 0) return 0;
    const h = 1e-4;
    const gx = (gap(at.x + h, at.y) - gap(at.x - h, at.y)) / (2 * h);
    const gy = (gap(at.x, at.y + h) - gap(at.x, at.y - h)) / (2 * h);
    const approach = Math.max(0, -(vx * gx + vy * gy));
    return approach * STOP_REACTION + (approach * approach) / (2 * STOP_DECELERATION);
  }

  /**
   * Stop the arm for a reason; the stop goes to the robot before anything else happens. The
   * decision's time is read first (a clock read), so it is never later than the stop on the wire
   * even when this thread is descheduled right after writing it.
   */
  private halt(reason: StopReason): void {
    if (!this.active) return;
    const decidedAt = this.o.now();
    this.o.robot.stop(STOP_DECELERATION);
    this.streamEnd?.(false);
    this.moving = false;
    this.velocity = { vx: 0, vy: 0 };
    this.state = 'stopped';
    this.stopReason = reason;
    this.stoppedAt = decidedAt;
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

/** A robot state with a NaN or infinite pose or speed, as a stop reason; undefined when finite. */
export function nonFiniteRobot(s: RobotState): StopReason | undefined {
  if (s.tcpPose.every(Number.isFinite) && s.tcpSpeed.every(Number.isFinite)) return undefined;
  return {
    code: 'non-finite',
    source: 'robot state',
    detail: `tool pose [${s.tcpPose.join(', ')}], speed [${s.tcpSpeed.join(', ')}]`,
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
