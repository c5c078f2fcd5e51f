/**
 * What the safety thread runs: the motion-capture client (NatNet receive), the state estimator
 * and the run's supervisor with its watchdog tick, on an event loop of their own. Nothing the
 * planner, the recorder or the UI does on the main thread can hold a frame in a socket buffer or
 * a tick in a timer queue here, so motion capture that arrives is seen as arriving.
 *
 * The Supervisor is the same class the main thread runs (safety/supervisor.ts), built from the
 * same plain-data configuration; this file only feeds it and reports what it decides. The robot
 * link stays on the main thread for now: robot states come in as messages and the supervisor's
 * twists and stops go out as messages (see docs/safety.md, "The safety thread").
 */
import { performance } from 'node:perf_hooks';
import { layoutForScene } from '#contract/state';
import { NatNetClient } from '../../mocap/client';
import { bindingFromScene } from '../../mocap/scene-binding';
import { StateEstimator } from '../../mocap/state-estimator';
import { RobotAdapter } from '../../robot/adapter';
import type { RobotState } from '../../robot/robot-state';
import { Supervisor, type SupervisedRobot } from '../../safety/supervisor';
import { labWorkspace } from '../../safety/workspace';
import { toSafetySchema, type FromSafety, type SafetyInit, type TickStats, type ToSafety } from './messages';

/** Longest tick history kept for the lateness figures (at 200 Hz, about 8 minutes). */
const MAX_SAMPLES = 100_000;

export class SafetyCore {
  private natnet: NatNetClient | undefined;
  private supervisor: Supervisor | undefined;
  private robotState: RobotState | undefined;
  private timer: NodeJS.Timeout | undefined;
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
    if (m.type === 'init') return this.init(m);
    if (m.type === 'stats') {
      this.post({ type: 'stats', id: m.id, stats: this.stats(), frameGaps: latenessStats(this.gaps) });
      if (m.restart) {
        this.lateness.length = 0;
        this.gaps.length = 0;
        this.ticks = 0;
      }
      return;
    }
    const s = this.supervisor;
    if (!s) return;
    switch (m.type) {
      case 'robot-state':
        this.robotState = m.state;
        return s.updateRobot(m.state);
      case 'robot-link-lost':
        return s.robotLinkLost(m.message);
      case 'arm':
        return void s.arm(m.report);
      case 'start-run':
        return s.startRun();
      case 'command':
        return void s.command(m.vx, m.vy);
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
    }
  }

  private async init(m: SafetyInit): Promise<void> {
    try {
      const adapter = new RobotAdapter({
        calibration: m.setup.robot.calibration,
        pusherOffset: m.setup.robot.pusherOffset,
      });
      const latest = () => this.robotState;
      const robot: SupervisedRobot = {
        get latest() {
          return latest();
        },
        sendTwist: (vx, vy, acceleration) => {
          this.post({ type: 'twist', vx, vy, acceleration });
          return 0;
        },
        stop: (acceleration = 0) => {
          this.post({ type: 'stop', acceleration });
          return undefined;
        },
      };
      // The main thread's monotonic clock, so decisions and robot states share one time line.
      const offset = (performance.timeOrigin - m.clockOrigin) / 1000;
      const supervisor = new Supervisor({
        robot,
        frame: {
          pusherInTable: (p) => adapter.pusherPosition(p),
          tableToBase: (vx, vy) => adapter.toolVelocity(vx, vy),
        },
        workspace: labWorkspace(m.setup, m.scene.table),
        acceleration: m.setup.safety.acceleration,
        ...m.supervisor,
        now: () => performance.now() / 1000 + offset,
      });
      supervisor.on('decision', (decision) =>
        this.post({ type: 'decision', decision, state: supervisor.state }),
      );
      const estimator = new StateEstimator({
        binding: bindingFromScene(m.scene),
        layout: layoutForScene(m.scene),
        calibration: () => m.setup.mocap,
      });
      const natnet = new NatNetClient(m.natnet);
      natnet.on('frame', (_frame, snapshot) => {
        const at = performance.now();
        if (this.lastFrameAt !== undefined && this.gaps.length < MAX_SAMPLES)
          this.gaps.push(at - this.lastFrameAt);
        this.lastFrameAt = at;
        const poses = estimator.frame(snapshot);
        supervisor.updateMocap(poses);
        this.post({ type: 'poses', poses });
      });
      this.supervisor = supervisor;
      this.natnet = natnet;
      await natnet.connect();
      this.startTicking(supervisor, m.tickMs);
      this.post({ type: 'ready' });
    } catch (err) {
      this.post({ type: 'failed', message: (err as Error).message });
    }
  }

  private startTicking(supervisor: Supervisor, periodMs: number): void {
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      // Lateness: how much longer than its period this tick waited since the last one.
      this.record(Math.max(0, now - last - periodMs));
      last = now;
      supervisor.tick();
    }, periodMs);
  }

  private record(ms: number): void {
    this.ticks++;
    if (this.lateness.length < MAX_SAMPLES) this.lateness.push(ms);
  }

  stats(): TickStats {
    return latenessStats(this.lateness, this.ticks);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.supervisor?.abort();
    await this.natnet?.close();
  }
}

/** p50, p99 and max of lateness samples (ms); zeros before the first tick. */
export function latenessStats(samples: readonly number[], ticks = samples.length): TickStats {
  if (samples.length === 0) return { ticks, p50: 0, p99: 0, max: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { ticks, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
}
