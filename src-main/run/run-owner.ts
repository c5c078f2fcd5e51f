/**
 * The run owner: one long-lived object that owns, across the runs of a console (or the one run of
 * `parapush run`), what every run shares, in the spirit of MuJoCo MPC's Agent (which owns task,
 * planner and thread pool for as long as it runs):
 *
 * - the run status, with one writer: every status change goes through `report`, folded by the
 *   lifecycle reducer (contract/run-lifecycle.ts, via run-status.ts); an operator's abort is
 *   reported once, here;
 * - the run clock: a run's time is measured here and nowhere else, and stops once the run's end is
 *   decided, however long winding down takes;
 * - the operator's abort (the run's AbortSignal) and pause (the gate the run waits at between
 *   actions);
 * - the run's recorder: every event of the run goes into its log from here (`record`), and the
 *   supervised run attaches the lab's streams to the recorder it gets from here;
 * - the fine workers (FinePool): started on first use, kept warm across runs (each run registers
 *   its scene with them), stopped by close().
 *
 * Who drives it: the console (console-core.ts reports the operator's start and the run's release,
 * lab-run-controller.ts its arm, pause, resume and abort) and `parapush run`.
 */
import type { ConsoleEvent, RunStatus } from '#contract/console-api';
import { endsRun, isRunActive, type RunLifecycle, type RunMode } from '#contract/run-lifecycle';
import { wallSeconds } from '#contract/time';
import { monotonicSeconds } from '../common/clock';
import { defaultWorkerCount, FinePool } from '../parareal/fine-pool';
import type { SpawnWorker } from '../parareal/worker-transport';
import type { RunRecorder } from './run-recorder';
import { RunStatusTracker, type RunStatusChange } from './run-status';

export interface RunOwnerOptions {
  /** Fine-model worker processes (default: one per core). */
  workers?: number;
  /** How fine workers start (Electron utility processes in the app; Node children by default). */
  spawn?: SpawnWorker;
  /** Wall clock, s since the epoch (the status's start time and log lines; injectable for tests). */
  now?: () => number;
  /** Monotonic clock, s (contract/time.ts; the safety thread's decisions carry its times). */
  clock?: () => number;
}

/** The operator's pause: the gate the run waits at after its current action, and its release. */
interface Pause {
  gate: Promise<void>;
  release(): void;
}

export class RunOwner {
  readonly workers: number;
  private readonly now: () => number;
  private readonly clock: () => number;
  private readonly tracker: RunStatusTracker;
  private pool: FinePool | null = null;
  private publish: (event: ConsoleEvent) => void = (event) => this.record(event);
  private recorder: RunRecorder | null = null;
  private abortController = new AbortController();
  private paused: Pause | null = null;
  /** Monotonic time when the current run started, s. */
  private t0: number;
  /** Run time at which the run's end was decided, s; null while it goes on. */
  private endedAt: number | null = null;

  constructor(private readonly o: RunOwnerOptions = {}) {
    this.workers = o.workers ?? defaultWorkerCount();
    this.now = o.now ?? wallSeconds;
    this.clock = o.clock ?? monotonicSeconds;
    this.t0 = this.clock();
    this.tracker = new RunStatusTracker(this.now, (words) =>
      this.emit({ type: 'log', at: this.now(), level: 'error', source: 'run', message: words }),
    );
  }

  /**
   * Where the owner's events go: the console core's publish, which shows them and hands each back
   * to `record`. Without one (a run without a console), events go straight into the run's log.
   */
  publishTo(publish: (event: ConsoleEvent) => void): void {
    this.publish = publish;
  }

  get status(): RunStatus {
    return this.tracker.status;
  }

  get lifecycle(): RunLifecycle {
    return this.tracker.lifecycle;
  }

  /** The current run's abort: fired by abort(), heard by the supervised run (and its supervisor). */
  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  /** Whether the operator has aborted the current run. */
  get aborted(): boolean {
    return this.abortController.signal.aborted;
  }

  /** Whether the current run's end is decided (an abort, a safety stop, or its own report of it). */
  get ending(): boolean {
    const s = this.lifecycle.state;
    return s === 'stopping' || s === 'ended';
  }

  /** The current run's log, for the lab streams the supervised run attaches; null when none. */
  get runRecorder(): RunRecorder | null {
    return this.recorder;
  }

  /** The fine workers: started on first use, warm for every later run, stopped by close(). */
  finePool(): FinePool {
    this.pool ??= new FinePool({ workers: this.workers, ...(this.o.spawn ? { spawn: this.o.spawn } : {}) });
    return this.pool;
  }

  /** Whether the fine workers have started (they stay up between runs). */
  workersStarted(): boolean {
    return this.pool !== null;
  }

  /**
   * The operator starts a run (its log already open, or null): a fresh abort, no pause, the clock
   * from now, and the lifecycle's start. Throws unless the last run has let go of the lab.
   */
  begin(mode: RunMode, recorder: RunRecorder | null = null): RunStatus {
    if (isRunActive(this.lifecycle)) throw new Error('a run is already in progress');
    if (this.lifecycle.state === 'stopping') throw new Error('the last run is still winding down');
    this.abortController = new AbortController();
    this.paused = null;
    this.t0 = this.clock();
    this.endedAt = null;
    this.recorder = recorder;
    return this.report({ event: { type: 'start', mode } });
  }

  /**
   * The one writer of the run status: a lifecycle event, readings, or both, with the run time it
   * happened at. An event that ends the run stops its clock and lets a paused run go to its end.
   */
  report(change: RunStatusChange): RunStatus {
    if (change.event && endsRun(change.event)) this.stopClock();
    if (change.safety === 'stopped' || (change.event && endsRun(change.event))) this.unpause();
    // Between runs (before the first, after the last let go) a reading has no run time.
    const between = this.lifecycle.state === 'idle' || this.lifecycle.state === 'ended';
    const status = this.tracker.apply(
      between && !change.event ? change : { ...change, elapsed: this.elapsed() },
    );
    this.publish({ type: 'run', status });
    return status;
  }

  /** An event of the run (planner steps, live state, decisions, log lines). */
  emit(event: ConsoleEvent): void {
    this.publish(event);
  }

  /** Into the current run's log: every event the run's console publishes (or the owner's own). */
  record(event: ConsoleEvent): void {
    this.recorder?.event(event);
  }

  /** What the operator did ("run.abort", ...), into the current run's log. */
  operator(action: string, detail: string): void {
    this.recorder?.operator(action, detail);
  }

  /** Seconds since the current run started, at monotonic time `at`. */
  runTime(at = this.clock()): number {
    return Math.max(0, at - this.t0);
  }

  /** The run's time as its status shows it: stopped at its end once that is decided. */
  elapsed(): number {
    return this.endedAt ?? this.runTime();
  }

  /** The run's end is decided now (if not already): its run time stays here. */
  stopClock(at?: number): void {
    this.endedAt ??= this.runTime(at);
  }

  /**
   * The operator's abort: the run's signal first (its listener stops the arm through the safety
   * thread on this call stack), then the status, once. Returns false when no run has the lab.
   */
  abort(reason: string): boolean {
    const s = this.lifecycle.state;
    if (s === 'idle' || s === 'ended') return false;
    this.abortController.abort();
    // A run whose end is already decided (winding down) is only hurried: its ending holds.
    if (isRunActive(this.lifecycle))
      this.report({ event: { type: 'abort', reason }, safety: 'stopped', armed: false });
    return true;
  }

  /** The operator's pause: the arm holds still after its current action until resume(). */
  pause(reason: string): RunStatus {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    this.paused = { gate, release };
    return this.report({ event: { type: 'pause' }, reason });
  }

  resume(): RunStatus {
    this.unpause();
    return this.report({ event: { type: 'resume' }, reason: null });
  }

  /** Awaited by the run after each action: resolves at once unless the operator paused it. */
  async betweenActions(): Promise<void> {
    await this.paused?.gate;
  }

  /**
   * The run has reported its last event and let go of the lab: the lifecycle ends (the status
   * shown does not change: its phase already says how the run ended) and the log is the caller's
   * to close.
   */
  release(): void {
    this.tracker.apply({ event: { type: 'released' } });
    this.recorder = null;
  }

  /** Aborts any run and stops the fine workers. */
  async close(reason = 'the run owner closed'): Promise<void> {
    this.abort(reason);
    const pool = this.pool;
    this.pool = null;
    await pool?.close();
  }

  private unpause(): void {
    this.paused?.release();
    this.paused = null;
  }
}
