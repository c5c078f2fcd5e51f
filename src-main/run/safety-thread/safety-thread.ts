/**
 * The main thread's side of the safety thread: starts the worker (worker.ts, from source through
 * tsx, as the fine workers start in a terminal), sends it the run's configuration as plain data
 * and the planner's proposals as messages, and re-emits what the supervisor there decides and
 * sees. Every message from the thread is parsed (messages.ts) before it is acted on.
 *
 * Its state mirrors the thread's supervisor from the decisions it reports; `command` answers at
 * once from that mirror, and a refusal arrives as a stop decision, which is also what the main
 * thread's own supervisor reports a refusal as.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { PlanarPoses } from '../../mocap/scene-binding';
import type { RobotState } from '../../robot/robot-state';
import type { PreflightReport } from '../../safety/preflight';
import type { Decision, SupervisorState } from '../../safety/supervisor';
import {
  fromSafetySchema,
  type FromSafety,
  type SafetyInit,
  type TickStats,
  type ToSafety,
} from './messages';

/** Longest wait for the thread to connect to motion capture and report ready, or to answer, ms. */
const START_TIMEOUT_MS = 15_000;

type Events = {
  decision: [Decision];
  poses: [PlanarPoses];
  /** The supervisor's twist for the robot (base frame, m/s). */
  twist: [{ vx: number; vy: number; acceleration: number }];
  /** The supervisor's stop for the robot. */
  stop: [{ acceleration: number }];
  /** The thread ended or sent something that is not a safety message: the run must stop. */
  error: [Error];
};

/** Tick lateness and motion-capture frame gaps in the thread, ms. */
export interface SafetyStats {
  ticks: TickStats;
  frameGaps: TickStats;
}

const workerEntry = new URL('./worker.ts', import.meta.url).href;
/** Registers tsx in the thread, then imports workerEntry. */
const bootstrap = new URL('./bootstrap.mjs', import.meta.url);

export class SafetyThread extends EventEmitter<Events> {
  state: SupervisorState = 'disarmed';
  private nextId = 1;
  private readonly waiting = new Map<number, (s: SafetyStats) => void>();
  private exited = false;
  private closing = false;

  private constructor(private readonly worker: Worker) {
    super();
  }

  /** Starts the thread and connects it to motion capture; resolves once it ticks. */
  static async start(init: Omit<SafetyInit, 'type' | 'clockOrigin'>): Promise<SafetyThread> {
    const worker = new Worker(bootstrap, { workerData: { entry: workerEntry } });
    const thread = new SafetyThread(worker);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the safety thread did not start')), START_TIMEOUT_MS);
      thread.onReady = (err) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
    });
    worker.on('message', (m: unknown) => thread.receive(m));
    worker.on('error', (err) => thread.fail(err));
    worker.on('exit', (code) => {
      thread.exited = true;
      if (!thread.closing) thread.fail(new Error(`the safety thread exited (code ${code})`));
    });
    thread.send({ type: 'init', ...init, clockOrigin: performance.timeOrigin });
    try {
      await ready;
    } catch (err) {
      await thread.close();
      throw err;
    }
    return thread;
  }

  private onReady: ((err?: Error) => void) | undefined;

  get active(): boolean {
    return this.state === 'armed' || this.state === 'running';
  }

  robotState(state: RobotState): void {
    this.send({ type: 'robot-state', state });
  }

  robotLinkLost(message: string): void {
    this.send({ type: 'robot-link-lost', message });
  }

  /** Asks the thread's supervisor to arm; resolves with its answer. */
  arm(report: PreflightReport): Promise<boolean> {
    const answer = new Promise<boolean>((resolve) => {
      const on = (d: Decision) => {
        if (d.kind !== 'armed' && d.kind !== 'arm-refused') return;
        this.off('decision', on);
        resolve(d.kind === 'armed');
      };
      this.on('decision', on);
    });
    this.send({ type: 'arm', report });
    return answer;
  }

  startRun(): void {
    this.send({ type: 'start-run' });
  }

  /** Proposes a table-frame pusher velocity; false when the mirror says the run is not running. */
  command(vx: number, vy: number): boolean {
    if (this.state !== 'running') return false;
    this.send({ type: 'command', vx, vy });
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

  reset(): void {
    this.send({ type: 'reset' });
  }

  /** The watchdog tick's lateness so far (ms), as the thread measured it; `restart` starts anew. */
  tickStats(restart = false): Promise<SafetyStats> {
    const id = this.nextId++;
    const answer = new Promise<SafetyStats>((resolve, reject) => {
      if (this.exited) return reject(new Error('the safety thread has ended'));
      // A thread that stopped answering must not hang its caller.
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('the safety thread did not answer'));
      }, START_TIMEOUT_MS);
      this.waiting.set(id, (stats) => {
        clearTimeout(timer);
        resolve(stats);
      });
    });
    this.send({ type: 'stats', id, restart });
    return answer;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    this.closing = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    // A thread that does not let go within a second is ended.
    const timer = setTimeout(() => void this.worker.terminate(), 1000);
    await exited;
    clearTimeout(timer);
  }

  private send(message: ToSafety): void {
    if (!this.exited) this.worker.postMessage(message);
  }

  private receive(raw: unknown): void {
    const parsed = fromSafetySchema.safeParse(raw);
    if (!parsed.success) return this.fail(new Error(`not a safety message: ${parsed.error.message}`));
    this.handle(parsed.data);
  }

  private handle(m: FromSafety): void {
    switch (m.type) {
      case 'ready':
        return this.onReady?.();
      case 'failed':
        return this.onReady?.(new Error(m.message));
      case 'error':
        return this.fail(new Error(m.message));
      case 'poses':
        return void this.emit('poses', m.poses);
      case 'decision':
        this.state = m.state;
        return void this.emit('decision', m.decision);
      case 'twist':
        return void this.emit('twist', { vx: m.vx, vy: m.vy, acceleration: m.acceleration });
      case 'stop':
        return void this.emit('stop', { acceleration: m.acceleration });
      case 'stats': {
        const resolve = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        return resolve?.({ ticks: m.stats, frameGaps: m.frameGaps });
      }
    }
  }

  private fail(err: Error): void {
    this.onReady?.(err);
    this.onReady = undefined;
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }
}
