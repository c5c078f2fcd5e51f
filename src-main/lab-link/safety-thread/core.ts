/**
 * What the safety thread runs, on an event loop of its own: the lab's streaming devices and the
 * run's supervisor.
 *
 * - Motion capture: the NatNet client (data and command sockets) and a state estimator whose
 *   poses feed the supervisor.
 * - The robot command stream: the UR5's RTDE connection (robot state in; twists, stops and the
 *   keep-alive stops out) with the control program it sends and watches.
 * - Each run's Supervisor (safety/supervisor.ts, the one class) and its watchdog tick.
 *
 * Nothing the planner, the recorder or the UI does on the main thread can hold a frame in a
 * socket buffer, a robot state in the RTDE stream or a tick in a timer queue here. The main
 * thread mirrors what it needs (robot states, frames, statistics: safety-thread.ts) and reaches
 * the arm only through this thread's supervisor, by messages: the one motion command it can send
 * outside the supervisor is a stop. Request/response devices stay on the main thread: the
 * dashboard and the Robotiq (its faults come in as messages, a gripper scene's finger moves go
 * out as messages). See docs/safety.md, "The safety thread".
 */
import { controlLimits, endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { NatNetClient } from '../../mocap/client';
import { bindingFromScene } from '../../mocap/scene-binding';
import { StateEstimator } from '../../mocap/state-estimator';
import { RobotAdapter } from '../../robot/adapter';
import { Ur5Connection } from '../../robot/ur5-connection';
import { JogRefused, jogTool, turnTool } from '../../robot/jog';
import { RtdeSetupError } from '../../robot/rtde/setup-errors';
import { monotonicSeconds } from '../../common/clock';
import type { PriorityResult } from '../../common/thread-priority';
import { quantileOfSorted } from '../../common/quantile';
import { every } from '../../common/timers';
import { sceneGuardFor } from '../../safety/scene-guard';
import { Supervisor, type HandSupervision, type SupervisedRobot } from '../../safety/supervisor';
import { footprintReach, labWorkspace } from '../../safety/workspace';
import type { Setup } from '../../calibration/setup-file';
import {
  toSafetySchema,
  type FromSafety,
  type RobotInfo,
  type SafetyConnect,
  type SupervisorConfig,
  type ThreadError,
  type TickStats,
  type ToSafety,
} from './messages';

/** Longest tick history kept for the lateness figures (at 200 Hz, about 8 minutes). */
const MAX_SAMPLES = 100_000;
/** A heartbeat every this many ticks (50 ms at 5 ms): the main thread's sign the thread runs. */
const HEARTBEAT_TICKS = 10;
/** Motion-capture statistics go to the main thread this often, s (the console reads them at 4 Hz). */
const MOCAP_STATS_PERIOD = 0.25;

interface Devices {
  robot: Ur5Connection;
  natnet: NatNetClient;
  estimator: StateEstimator;
  scene: Scene;
}

export class SafetyCore {
  private devices: Devices | undefined;
  private threadPriority: PriorityResult = { raised: false, reason: 'not asked' };
  /** The jog under way (robot/jog.ts), aborted by `jog-stop`. */
  private jogging: AbortController | undefined;
  private setup: Setup | undefined;
  private supervisor: Supervisor | undefined;
  /** A gripper scene's finger gap as the Robotiq last reported it (m). */
  private opening: number | undefined;
  private nextFingerId = 1;
  private readonly fingerMoves = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private timers: NodeJS.Timeout[] = [];
  private readonly lateness: number[] = [];
  /** Time between frames as they arrive here (ms): tells frames that stopped from a late tick. */
  private readonly gaps: number[] = [];
  private lastFrameAt: number | undefined;
  private ticks = 0;

  constructor(private readonly post: (message: FromSafety) => void) {}

  /** One message from the main thread; a malformed one stops an active run (fail safe). */
  async receive(raw: unknown): Promise<void> {
    const parsed = toSafetySchema.safeParse(raw);
    if (!parsed.success) {
      this.supervisor?.runFailed(`malformed message to the safety thread: ${parsed.error.message}`);
      // A refused new run must not leave the last run's supervisor to be armed in its place.
      if (typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'supervise') {
        this.supervisor?.removeAllListeners();
        this.supervisor = undefined;
      }
      return;
    }
    try {
      await this.handle(parsed.data);
    } catch (err) {
      // A refused request (start-run while not armed, ...) is reported; the thread keeps running.
      this.post({ type: 'error', message: (err as Error).message });
    }
  }

  private async handle(m: ToSafety): Promise<void> {
    switch (m.type) {
      case 'connect':
        return this.connect(m);
      case 'setup':
        this.setup = m.setup;
        return;
      case 'send-program':
        return this.sendProgram(m.id);
      case 'jog':
        return this.jog(m.id, (robot, signal) => jogTool(robot, m.dx, m.dy, { signal }));
      case 'turn':
        return this.jog(m.id, (robot, signal) =>
          turnTool(robot, m.angle, this.setup?.robot.pusherOffset ?? [0, 0, 0], { signal }),
        );
      case 'jog-stop':
        return void this.jogging?.abort();
      case 'robot-stop':
        return void this.devices?.robot.stop();
      case 'supervise':
        return this.supervise(m.scene, m.config);
      case 'opening':
        this.opening = m.opening;
        return;
      case 'fingers-done': {
        const move = this.fingerMoves.get(m.id);
        this.fingerMoves.delete(m.id);
        if (m.error === undefined) move?.resolve();
        else move?.reject(new Error(m.error));
        return;
      }
      case 'stats':
        this.post({ type: 'stats', id: m.id, stats: this.stats(), frameGaps: latenessStats(this.gaps) });
        if (m.restart) {
          this.lateness.length = 0;
          this.gaps.length = 0;
          this.ticks = 0;
        }
        return;
    }
    const s = this.supervisor;
    if (!s) throw new Error(`${m.type}: no run is supervised (supervise first)`);
    switch (m.type) {
      case 'arm':
        // Every answer is a decision the main thread waits for; an armed supervisor would give none.
        if (s.active) throw new Error(`cannot arm: the run is already ${s.state}`);
        return void s.arm(m.report);
      case 'start-run':
        return s.startRun();
      case 'command':
        return void s.command(m.vx, m.vy, m.yawRate);
      case 'stream':
        // The supervisor refreshes the control itself: the command stream never waits on the main thread.
        return void s
          .stream(m.vx, m.vy, m.yawRate, m.duration, m.period)
          .then((ok) => this.post({ type: 'streamed', id: m.id, ok }));
      case 'fingers':
        return void s.commandFingers(m.openingSpeed, m.duration);
      case 'hold':
        return s.hold();
      case 'abort':
        return s.abort();
      case 'finish':
        return s.finish(m.outcome);
      case 'run-failed':
        return s.runFailed(m.detail);
      case 'reset':
        return s.reset();
      case 'gripper-fault':
        return s.gripperFault(m.detail);
      case 'pusher-lost':
        return s.pusherLost(m.detail);
    }
  }

  private async connect(m: SafetyConnect): Promise<void> {
    this.setup = m.setup;
    // A tool of a registered kind registers itself when its module is imported.
    for (const module of m.toolModules) await import(module);
    try {
      const robot = await Ur5Connection.connect({
        host: m.robot.host,
        ...(m.robot.rtdePort ? { rtdePort: m.robot.rtdePort } : {}),
        ...(m.robot.scriptPort ? { scriptPort: m.robot.scriptPort } : {}),
        sendProgramOnConnect: m.robot.sendProgramOnConnect,
        flangeLoad: m.setup.robot.tool,
        onNotice: (message) => this.post({ type: 'robot-event', event: 'notice', message }),
      });
      const estimator = new StateEstimator({
        binding: bindingFromScene(m.scene),
        layout: layoutForScene(m.scene),
        calibration: () => this.setup!.mocap,
      });
      const natnet = new NatNetClient(m.natnet);
      const devices: Devices = { robot, natnet, estimator, scene: m.scene };
      this.devices = devices;
      this.wireRobot(devices);
      natnet.on('frame', (frame, snapshot) => {
        const at = monotonicSeconds();
        if (this.lastFrameAt !== undefined && this.gaps.length < MAX_SAMPLES)
          this.gaps.push((at - this.lastFrameAt) * 1000);
        this.lastFrameAt = at;
        // The supervisor first: the mirror to the main thread comes after its decision.
        this.supervisor?.updateMocap(estimator.frame(snapshot));
        this.post({ type: 'frame', frame, snapshot });
      });
      const info = await natnet.connect().catch(async (err: unknown) => {
        await robot.disconnect();
        throw err;
      });
      this.startTicking(m.tick);
      this.timers.push(
        every(MOCAP_STATS_PERIOD, () => this.post({ type: 'mocap-stats', stats: natnet.getStats() })),
      );
      this.post({
        type: 'ready',
        robot: this.robotInfo(),
        mocapApp: info.appName,
        mocapLocal: natnet.localEndpoint!,
        priority: this.threadPriority,
      });
    } catch (err) {
      this.devices = undefined;
      this.post({ type: 'failed', error: crossing(err as Error) });
    }
  }

  /** Mirrors the robot link to the main thread and feeds the supervisor from it. */
  private wireRobot(d: Devices): void {
    const { robot } = d;
    robot.on('state', (s) => {
      this.supervisor?.updateRobot(s);
      this.post({ type: 'robot-state', state: s });
    });
    robot.on('linkLost', (err) => {
      this.supervisor?.robotLinkLost(err.message);
      this.post({ type: 'robot-info', robot: this.robotInfo() });
      this.post({ type: 'robot-event', event: 'linkLost', message: err.message });
    });
    robot.on('linkRestored', () => {
      this.post({ type: 'robot-info', robot: this.robotInfo() });
      this.post({ type: 'robot-event', event: 'linkRestored' });
    });
    robot.on('reconnectFailed', (err) =>
      this.post({ type: 'robot-event', event: 'reconnectFailed', message: err.message }),
    );
    robot.on('programSent', () => this.post({ type: 'robot-event', event: 'programSent' }));
  }

  private robotInfo(): RobotInfo {
    const r = this.devices!.robot;
    return {
      linkUp: r.linkUp,
      ...(r.uploadProblem !== undefined ? { uploadProblem: r.uploadProblem } : {}),
      frequency: r.frequency,
      ...(r.controllerVersion ? { controllerVersion: { ...r.controllerVersion } } : {}),
      settings: r.settings,
    };
  }

  /**
   * A jog or a turn of the tool on the thread's robot link; refused while a run's supervisor is armed or running (the
   * supervisor is then the only one to command the arm) and while another jog moves it.
   */
  private async jog(
    id: number,
    move: (robot: Ur5Connection, signal: AbortSignal) => Promise<number>,
  ): Promise<void> {
    const robot = this.devices?.robot;
    const fail = (e: Error): void => this.post({ type: 'reply', id, error: crossing(e) });
    if (!robot) return fail(new Error('the robot is not connected'));
    if (this.supervisor?.active)
      return fail(new JogRefused('a run is armed: the supervisor commands the arm'));
    if (this.jogging) return fail(new JogRefused('a jog is already under way'));
    const control = new AbortController();
    this.jogging = control;
    try {
      const moved = await move(robot, control.signal);
      this.post({ type: 'reply', id, moved });
    } catch (err) {
      fail(err as Error);
    } finally {
      this.jogging = undefined;
    }
  }

  /** What the thread's entry got when it raised the thread's priority (reported with `ready`). */
  priority(result: PriorityResult): void {
    this.threadPriority = result;
  }

  private async sendProgram(id: number): Promise<void> {
    const robot = this.devices?.robot;
    try {
      if (!robot) throw new Error('the robot is not connected');
      await robot.sendProgram();
      this.post({ type: 'robot-info', robot: this.robotInfo() });
      this.post({ type: 'reply', id });
    } catch (err) {
      if (robot) this.post({ type: 'robot-info', robot: this.robotInfo() });
      const e = err as Error;
      this.post({ type: 'reply', id, error: crossing(e) });
    }
  }

  /**
   * A new supervisor for a run, on `scene` (the scene within the lab's limits): the workspace,
   * the scene's obstacles, table and objects as safety limits, and a gripper scene's turn and
   * fingers. The previous run's supervisor, stopped, is let go.
   */
  private supervise(scene: Scene, config: SupervisorConfig): void {
    const d = this.devices;
    if (!d) throw new Error('the safety thread is not connected to the lab');
    if (this.supervisor?.active) throw new Error('a run is still supervised: it must stop first');
    this.supervisor?.removeAllListeners();
    const setup = this.setup!;
    const adapter = new RobotAdapter({
      calibration: setup.robot.calibration,
      pusherOffset: setup.robot.pusherOffset,
    });
    const hand = this.handSupervision(scene, adapter, setup.safety.acceleration);
    const supervisor = new Supervisor({
      robot: this.commandStream(d),
      frame: {
        pusherInTable: (p) => adapter.pusherPosition(p),
        tableToBase: (vx, vy) => adapter.toolVelocity(vx, vy),
      },
      workspace: labWorkspace(setup, scene.table),
      // The scene's obstacles, table top and objects are safety limits, whatever the task's costs.
      guard: sceneGuardFor(scene),
      maxSpeed: controlLimits(scene).maxSpeed,
      acceleration: setup.safety.acceleration,
      ...(hand ? { hand } : {}),
      ...config,
    });
    supervisor.on('decision', (decision) =>
      this.post({
        type: 'decision',
        decision,
        state: supervisor.state,
        ...(supervisor.stopReason ? { stopReason: supervisor.stopReason } : {}),
        ...(supervisor.stoppedAt !== undefined ? { stoppedAt: supervisor.stoppedAt } : {}),
      }),
    );
    this.supervisor = supervisor;
  }

  /** The robot as the supervisor drives it: every command also goes to the main thread's log. */
  private commandStream(d: Devices): SupervisedRobot {
    const robot = d.robot;
    const post = this.post;
    return {
      get latest() {
        return robot.latest;
      },
      sendTwist(vx, vy, acceleration, yaw) {
        const seq = robot.sendTwist(vx, vy, acceleration, yaw);
        post({
          type: 'command',
          kind: 'twist',
          seq,
          vx,
          vy,
          acceleration,
          ...(yaw ? { yawRate: yaw.rate } : {}),
        });
        return seq;
      },
      stop(acceleration) {
        const seq = robot.stop(acceleration);
        post({
          type: 'command',
          kind: 'stop',
          seq: seq ?? null,
          vx: 0,
          vy: 0,
          acceleration: acceleration ?? 0,
        });
        return seq;
      },
    };
  }

  /**
   * What the supervisor needs of a gripper scene's robot (undefined for a pusher). Turning
   * commands accelerate so that the gripper's farthest point accelerates as fast as the setup
   * lets the tool. The fingers are the Robotiq on the main thread, moved by message.
   */
  private handSupervision(
    scene: Scene,
    adapter: RobotAdapter,
    acceleration: number,
  ): HandSupervision | undefined {
    const tool = endEffectorOf(scene);
    if (!tool.fingers) return undefined;
    const { maxYawRate, maxOpeningSpeed } = controlLimits(scene);
    const footprint = tool.outline;
    const opening = (): number | undefined => this.opening;
    return {
      maxYawRate: maxYawRate!,
      maxOpeningSpeed: maxOpeningSpeed!,
      yawAcceleration: acceleration / footprintReach(footprint),
      maxOpening: tool.fingers.maxOpening,
      footprint,
      yawInTable: (p) => adapter.toolYaw(p),
      toolTwist: (vx, vy, yawRate, p) => adapter.toolTwist(vx, vy, yawRate, p),
      fingers: {
        get opening() {
          return opening();
        },
        move: (gap, speed) =>
          new Promise<void>((resolve, reject) => {
            const id = this.nextFingerId++;
            this.fingerMoves.set(id, { resolve, reject });
            this.post({ type: 'fingers', id, opening: gap, speed });
          }),
      },
    };
  }

  private startTicking(period: number): void {
    let last = monotonicSeconds();
    this.timers.push(
      every(period, () => {
        const now = monotonicSeconds();
        // Lateness: how much longer than its period this tick waited since the last one, ms.
        this.record(Math.max(0, now - last - period) * 1000);
        last = now;
        this.supervisor?.tick();
        if (this.ticks % HEARTBEAT_TICKS === 0) this.post({ type: 'heartbeat' });
      }),
    );
  }

  private record(ms: number): void {
    this.ticks++;
    if (this.lateness.length < MAX_SAMPLES) this.lateness.push(ms);
  }

  stats(): TickStats {
    return latenessStats(this.lateness, this.ticks);
  }

  /** Stops the arm and lets go of the lab. */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.supervisor?.abort();
    const d = this.devices;
    this.devices = undefined;
    if (!d) return;
    d.robot.stop();
    await Promise.allSettled([d.robot.disconnect(), d.natnet.close()]);
  }
}

/** p50, p99 and max of lateness samples (ms); zeros before the first tick. */
export function latenessStats(samples: readonly number[], ticks = samples.length): TickStats {
  if (samples.length === 0) return { ticks, p50: 0, p99: 0, max: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    ticks,
    p50: quantileOfSorted(sorted, 0.5),
    p99: quantileOfSorted(sorted, 0.99),
    max: sorted[sorted.length - 1]!,
  };
}

/** An error as it crosses to the main thread (messages.ts ThreadError): its kind and words. */
function crossing(e: Error): ThreadError {
  return {
    name: e.name,
    message: e.message,
    ...(e instanceof RtdeSetupError ? { rtdeSetup: { direction: e.direction, failed: e.failed } } : {}),
  };
}
