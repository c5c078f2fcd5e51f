/**
 * The main thread's side of the safety thread: starts the worker (common/worker-thread.ts: the
 * bundled entry in the Electron build, else worker.ts from source through tsx), connects it to
 * the lab's robot and motion capture, and routes what it reports: robot states and frames to the
 * mirrors (mirrors.ts), a run's decisions and commands to that run's SupervisorMirror. Every message from the thread is parsed (messages.ts) before it is acted on.
 *
 * Fail safe: a thread that exits, throws, sends something that is not a safety message or sends
 * no heartbeat for SAFETY_THREAD_WATCH.heartbeatLimit (while this thread itself kept time) is ended, and the run
 * it supervised stops with the reason; the robot link counts as lost.
 */
import { EventEmitter } from 'node:events';
import { SAFETY_THREAD_WATCH } from '#contract/safety-limits';
import { toolModules } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { Setup } from '../../calibration/setup-file';
import {
  fromSafetySchema,
  type FromSafety,
  type SafetyConnect,
  type SupervisorConfig,
  type TickStats,
  type ToSafety,
} from './messages';
import { MocapMirror, threadError, RobotMirror } from './mirrors';
import { SupervisorMirror } from './supervisor-mirror';
import { monotonicSeconds } from '../../common/clock';
import { WorkerThread } from '../../common/worker-thread';
import { every } from '../../common/timers';

/** Longest wait for the thread to connect to the lab and report ready, or to answer, s. */
const START_TIMEOUT = 15;
/** No heartbeat for this long, s: the thread has stopped answering. The heartbeat check's period, s. */
const { heartbeatLimit, heartbeatCheck } = SAFETY_THREAD_WATCH;

type Events = {
  /** The thread ended or stopped answering: the lab link is gone. */
  error: [Error];
  /** A gripper scene's finger move the thread's supervisor sends (gap m, speed m/s); answer with fingersDone. */
  fingers: [{ id: number; opening: number; speed: number }];
};

/** Tick lateness and motion-capture frame gaps in the thread, ms. */
export interface SafetyStats {
  ticks: TickStats;
  frameGaps: TickStats;
}

/** The bundled entry electron-vite builds next to the main bundle (electron.vite.config.ts), else the source. */
const entry = {
  bundled: new URL('./safety-worker.js', import.meta.url),
  source: new URL('./worker.ts', import.meta.url),
};

export class SafetyThread extends EventEmitter<Events> {
  readonly robot: RobotMirror;
  readonly natnet: MocapMirror;
  private run: SupervisorMirror | undefined;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (m: FromSafety) => void; reject: (e: Error) => void }
  >();
  private closing = false;
  private failed: Error | undefined;
  private lastHeartbeat = monotonicSeconds();
  private watchdog: NodeJS.Timeout | undefined;

  private constructor(
    private readonly worker: WorkerThread<FromSafety>,
    ready: Extract<FromSafety, { type: 'ready' }>,
  ) {
    super();
    this.robot = new RobotMirror(
      ready.robot,
      {
        sendProgram: () =>
          this.request({ type: 'send-program', id: this.nextId++ }, 60).then(() => undefined),
        // A jog lasts seconds at the most (robot/jog.ts: 50 mm at 20 mm/s, or its stall limit).
        jog: (dx, dy) =>
          this.request({ type: 'jog', id: this.nextId++, dx, dy }, 30).then((m) =>
            m.type === 'reply' ? (m.moved ?? 0) : 0,
          ),
        turn: (angle) =>
          this.request({ type: 'turn', id: this.nextId++, angle }, 30).then((m) =>
            m.type === 'reply' ? (m.moved ?? 0) : 0,
          ),
        stopJog: () => this.send({ type: 'jog-stop' }),
      },
      () => this.send({ type: 'robot-stop' }),
    );
    this.natnet = new MocapMirror(ready.mocapApp, ready.mocapLocal);
    this.priority = ready.priority;
    // What came before (states and frames before ready) is handled first.
    worker.listen({
      message: (m) => this.handle(m),
      invalid: (problem) => this.fail(new Error(`not a safety message: ${problem}`)),
      error: (err) => this.fail(err),
      exit: (code) => {
        if (!this.closing) this.fail(new Error(`the safety thread exited (code ${code})`));
      },
    });
  }

  /** Whether the thread runs at raised priority, or why not (common/thread-priority.ts). */
  readonly priority: Extract<FromSafety, { type: 'ready' }>['priority'];

  /** Starts the thread and connects it to the lab; resolves once the robot link and motion capture are up. */
  static async start(
    connect: Omit<SafetyConnect, 'type' | 'toolModules'>,
    /** Told what the robot connection waits for meanwhile (RTDE inputs held by a previous session). */
    onNotice?: (text: string) => void,
  ): Promise<SafetyThread> {
    const start: ToSafety = { type: 'connect', ...connect, toolModules: toolModules() };
    const { thread, answer } = await WorkerThread.start({
      entry,
      schema: fromSafetySchema,
      start,
      timeout: START_TIMEOUT,
      // What the thread reports before it is ready (states, frames) is handled once it is.
      settle: (m) => {
        if (m.type === 'robot-event' && m.event === 'notice') onNotice?.(m.message ?? '');
        return m.type === 'ready' ? m : m.type === 'failed' ? threadError(m.error) : undefined;
      },
      errors: {
        timeout: 'the safety thread did not start',
        invalid: (problem) => `not a safety message: ${problem}`,
        exit: (code) => `the safety thread exited (code ${code}) before it connected`,
      },
      abandon: stopWorker,
    });
    const safety = new SafetyThread(thread, answer);
    safety.startWatchdog();
    return safety;
  }

  /** Whether the thread is up (not ended, not failed). */
  get alive(): boolean {
    return !this.worker.ended && this.failed === undefined;
  }

  /** A new supervisor for a run on `scene` (within the lab's limits); the thread's previous one is let go. */
  supervise(scene: Scene, config: SupervisorConfig = {}): SupervisorMirror {
    const run = new SupervisorMirror((m) => this.send(m));
    if (this.failed) run.threadFailed(this.failed.message);
    this.run = run;
    this.send({ type: 'supervise', scene, config });
    return run;
  }

  /** A newly saved setup: the thread's motion-capture calibration and later runs use it. */
  useSetup(setup: Setup): void {
    this.send({ type: 'setup', setup });
  }

  /** A gripper scene's finger gap as the Robotiq reports it, m. */
  opening(opening: number): void {
    this.send({ type: 'opening', opening });
  }

  /** How a finger move the thread asked for went. */
  fingersDone(id: number, error?: string): void {
    this.send({ type: 'fingers-done', id, ...(error !== undefined ? { error } : {}) });
  }

  /** The watchdog tick's lateness so far (ms), as the thread measured it; `restart` starts anew. */
  async tickStats(restart = false): Promise<SafetyStats> {
    const m = await this.request({ type: 'stats', id: this.nextId++, restart });
    if (m.type !== 'stats') throw new Error(`the safety thread answered ${m.type} to a stats request`);
    return { ticks: m.stats, frameGaps: m.frameGaps };
  }

  /** Stops the arm, lets go of the lab and ends the thread. */
  async close(): Promise<void> {
    clearInterval(this.watchdog);
    if (this.worker.ended) return;
    this.closing = true;
    await stopWorker(this.worker);
  }

  private startWatchdog(): void {
    let lastCheck = monotonicSeconds();
    this.watchdog = every(heartbeatCheck, () => {
      const now = monotonicSeconds();
      // A check that ran late says this thread stalled: the heartbeats wait in its queue.
      const stalledHere = now - lastCheck > heartbeatCheck + heartbeatLimit / 2;
      lastCheck = now;
      if (stalledHere) {
        this.lastHeartbeat = now;
        return;
      }
      const silent = now - this.lastHeartbeat;
      if (silent > heartbeatLimit) {
        this.fail(
          new Error(
            `the safety thread stopped answering (no heartbeat for ${(silent * 1000).toFixed(0)} ms)`,
          ),
        );
        void this.worker.terminate();
      }
    });
  }

  private request(m: ToSafety & { id: number }, timeout = START_TIMEOUT): Promise<FromSafety> {
    return new Promise((resolve, reject) => {
      if (!this.alive) return reject(new Error('the safety thread has ended'));
      // A thread that stopped answering must not hang its caller.
      const timer = setTimeout(() => {
        this.waiting.delete(m.id);
        reject(new Error('the safety thread did not answer'));
      }, timeout * 1000);
      this.waiting.set(m.id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send(m);
    });
  }

  private send(message: ToSafety): void {
    this.worker.post(message);
  }

  private handle(m: FromSafety): void {
    switch (m.type) {
      case 'heartbeat':
        this.lastHeartbeat = monotonicSeconds();
        return;
      case 'robot-state':
        return this.robot.state(m.state);
      case 'robot-info':
        return this.robot.info(m.robot);
      case 'robot-event':
        if (m.event === 'linkLost' || m.event === 'reconnectFailed')
          return void this.robot.emit(m.event, new Error(m.message ?? 'RTDE link closed'));
        if (m.event === 'notice') return void this.robot.emit('notice', m.message ?? '');
        return void this.robot.emit(m.event);
      case 'frame':
        return this.natnet.frame(m.frame, m.snapshot);
      case 'mocap-stats':
        return this.natnet.statsUpdate(m.stats);
      case 'decision':
      case 'command':
      case 'streamed':
        return this.run?.receive(m);
      case 'fingers':
        return void this.emit('fingers', { id: m.id, opening: m.opening, speed: m.speed });
      case 'reply': {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (m.error) w?.reject(threadError(m.error));
        else w?.resolve(m);
        return;
      }
      case 'stats': {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        return w?.resolve(m);
      }
      case 'error':
        // A refused request (an arm while armed, a start while not armed): the run is told why.
        return this.run?.refused(m.message);
      case 'ready':
      case 'failed':
        return;
    }
  }

  private fail(err: Error): void {
    if (this.failed || this.closing) return;
    this.failed = err;
    clearInterval(this.watchdog);
    this.run?.threadFailed(err.message);
    this.robot.lost(err);
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }
}

/** Asks the worker to close (it stops the arm and lets go of the lab); ends it after a second. */
function stopWorker(worker: WorkerThread<FromSafety>): Promise<void> {
  return worker.end('close', 1);
}
