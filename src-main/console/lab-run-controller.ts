/**
 * The console's run controller on a lab: a dry run on the in-process virtual lab, a real run on
 * the configured lab. Either way the run is the supervised loop `parapush run` uses (motion
 * capture -> state -> planner -> supervisor -> robot, through the real protocols); this maps the
 * operator's planner settings onto it and its reports onto console events.
 *
 * A real run waits, after green pre-flight checks, for the operator's explicit arm command.
 * Abort is synchronous end to end: abort() fires the run's AbortSignal, whose listener in
 * supervisedRun calls supervisor.abort(), which writes the stop to the robot on the same stack.
 */
import { performance } from 'node:perf_hooks';
import type { ConsoleEvent, RunStatus } from '../contract/console-api';
import type { PlannerSettings } from '../contract/planner-settings';
import { layoutForScene } from '../contract/state';
import type { SpawnWorker } from '../parareal/worker-transport';
import type { ModelRequest } from '../parareal/model-choice';
import type { Task } from '../planning/task-file';
import type { LabLink } from '../run/lab-link';
import { supervisedRun, type SupervisedRunResult } from '../run/supervised-run';
import { describeStop } from '../safety/stop-reasons';
import type { Decision } from '../safety/supervisor';
import type { LabSession } from './lab-session';
import { measuredState } from './live-state';
import type { AbortSource, RunController, RunMode, RunRequest, RunSink } from './run-controller';
import { modelForRun, sceneForRun, taskForRun } from './task-from-settings';

export interface LabRunControllerOptions {
  /** Where dry runs go: the in-process virtual lab. */
  virtualLab: LabSession;
  /** Where real runs go; null when no real lab is configured (real runs are refused). */
  realLab: LabSession | null;
  /** Folder of the shipped task files (resources/tasks). */
  tasksDir: string;
  /** Fine-model worker processes per run. */
  workers: number;
  /** How workers start (Electron utility processes in the app). */
  spawn?: SpawnWorker;
  seed?: number;
  /** Rate of live-state events for the live view (Hz). */
  liveRateHz?: number;
}

const ABORTED = describeStop({ code: 'operator-abort' });

interface ActiveRun {
  mode: RunMode;
  sink: RunSink;
  abort: AbortController;
  /** performance.now() at start: run times are measured from here. */
  t0: number;
  /** Resolves the pending wait for the operator's arm command, when the run is waiting. */
  armed: (() => void) | null;
  /** Whether the operator's abort has already been reported (final status keeps it). */
  aborted: boolean;
  /** While paused: the wait that holds the run after its current action, and its release. */
  paused: { gate: Promise<void>; release: () => void } | null;
}

export class LabRunController implements RunController {
  private active: ActiveRun | null = null;
  /** The previous run winding down (pool closing, link listeners detaching). */
  private ending: Promise<void> = Promise.resolve();
  private session: LabSession;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly o: LabRunControllerOptions) {
    this.session = o.realLab ?? o.virtualLab;
  }

  /** The lab the console shows: that of the current or last run (the real one when configured). */
  currentSession(): LabSession {
    return this.session;
  }

  /** Whether a run owns the lab now (one that was aborted and is still winding down included). */
  runInProgress(): boolean {
    return this.active !== null;
  }

  /** Fine workers of the run under way, or 0 between runs. */
  runningWorkers(): number {
    return this.active ? this.o.workers : 0;
  }

  get workers(): number {
    return this.o.workers;
  }

  /** Calls back when a run starts or ends, or the lab in use changes; returns unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(request: RunRequest, sink: RunSink): Promise<void> {
    // An aborted run may still be winding down (planning finishing, the pool closing): wait for it.
    if (this.active?.aborted) await this.ending;
    if (this.active) throw new Error('a run is already in progress');
    const session = request.mode === 'dry' ? this.o.virtualLab : this.o.realLab;
    if (!session)
      throw new Error(
        'no real lab is configured: set the robot and motion-capture hosts in the lab settings',
      );
    const scene = sceneForRun(request.scene, request.settings);
    const task = taskForRun(scene, request.settings, this.o.tasksDir);
    const model = modelForRun(request.settings);
    const run: ActiveRun = {
      mode: request.mode,
      sink,
      abort: new AbortController(),
      t0: performance.now(),
      armed: null,
      aborted: false,
      paused: null,
    };
    this.active = run;
    this.session = session;
    this.changed();
    let link: LabLink;
    try {
      log(sink, 'info', 'lab', `connecting to the ${session.description}`);
      link = await session.linkFor(scene);
    } catch (err) {
      this.release(run);
      throw new Error(`cannot connect to the lab: ${(err as Error).message}`, { cause: err });
    }
    if (run.mode === 'dry') {
      // A dry run starts from the scene as drawn, not from where the last run left the objects.
      try {
        if (await session.placeObjects())
          log(sink, 'info', 'lab', "objects placed on the scene's start poses");
      } catch (err) {
        this.release(run);
        throw new Error(`cannot place the objects: ${(err as Error).message}`, { cause: err });
      }
    }
    if (run.abort.signal.aborted) {
      this.release(run);
      return;
    }
    log(sink, 'info', 'lab', `connected; planning with ${modelName(model)}, ${task.planner.kind} planner`);
    this.ending = this.execute(run, link, task, model, request.settings);
  }

  async arm(): Promise<void> {
    const run = this.active;
    if (!run || run.mode !== 'real') throw new Error('there is no real run to arm');
    if (!run.armed)
      throw new Error('the run is not waiting to be armed: its pre-flight checks are not all green yet');
    const confirm = run.armed;
    run.armed = null;
    log(run.sink, 'warn', 'operator', 'Real run armed by the operator');
    confirm();
  }

  async pause(): Promise<void> {
    const run = this.active;
    if (!run || run.paused) throw new Error('there is no running run to pause');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    run.paused = { gate, release };
    run.sink.status({ phase: 'paused', reason: 'Paused by operator: the arm holds still after this action' });
    log(run.sink, 'info', 'operator', 'Run paused');
  }

  async resume(): Promise<void> {
    const run = this.active;
    if (!run?.paused) throw new Error('there is no paused run to resume');
    const { release } = run.paused;
    run.paused = null;
    run.sink.status({ phase: 'running', reason: null });
    log(run.sink, 'info', 'operator', 'Run resumed');
    release();
  }

  abort(_source: AbortSource): void {
    const run = this.active;
    if (!run) return;
    // First the stop (synchronously, through the supervisor), then the words.
    run.abort.abort();
    run.aborted = true;
    const waiting = run.armed;
    run.armed = null;
    waiting?.();
    run.paused?.release();
    run.paused = null;
    run.sink.status({ phase: 'aborted', reason: ABORTED, safety: 'stopped', armed: false });
  }

  private async execute(
    run: ActiveRun,
    link: LabLink,
    task: Task,
    model: ModelRequest,
    settings: PlannerSettings,
  ): Promise<void> {
    const { sink } = run;
    const layout = layoutForScene(link.scene);
    const live = setInterval(
      () => {
        const state = measuredState(layout, link.poses());
        if (state)
          sink.emit({ type: 'state', time: this.runTime(run), sliderIds: [...layout.sliderIds], state });
      },
      1000 / (this.o.liveRateHz ?? 30),
    );
    try {
      const result = await supervisedRun({
        link,
        task,
        model,
        coarse: settings.coarseModel,
        workers: this.o.workers,
        seed: this.o.seed ?? 1,
        signal: run.abort.signal,
        ...(this.o.spawn ? { spawn: this.o.spawn } : {}),
        ...(run.mode === 'real' ? { confirmArm: () => this.waitForArm(run) } : {}),
        betweenActions: async () => {
          await run.paused?.gate;
        },
        onPreflight: (report) => {
          sink.emit({ type: 'preflight', report });
          for (const c of report.checks.filter((c) => !c.ok))
            log(sink, 'warn', 'preflight', `${c.label}: ${c.reason}`);
        },
        onDecision: (d) => this.decision(run, d),
        onStep: (step) => sink.emit({ type: 'planner-step', step }),
      });
      this.ended(run, result);
    } catch (err) {
      log(sink, 'error', 'run', `run failed: ${(err as Error).message}`);
      if (!run.aborted)
        sink.status({
          phase: 'failed',
          reason: (err as Error).message,
          armed: false,
          elapsed: this.runTime(run),
        });
    } finally {
      clearInterval(live);
      this.release(run);
    }
  }

  private waitForArm(run: ActiveRun): Promise<void> {
    if (run.abort.signal.aborted) return Promise.resolve();
    run.sink.status({ reason: 'Pre-flight checks green: arm to start the real run' });
    log(run.sink, 'warn', 'run', 'Pre-flight checks green: waiting for the operator to arm the real run');
    return new Promise((resolve) => (run.armed = resolve));
  }

  /** Supervisor decisions as the status bar and the event log show them. */
  private decision(run: ActiveRun, d: Decision): void {
    const { sink } = run;
    const time = Math.max(0, (d.at - run.t0) / 1000);
    const tell = (decision: 'allow' | 'stop', reason: string): void =>
      sink.emit({ type: 'supervisor', time, decision, reason });
    switch (d.kind) {
      case 'armed':
        sink.status({ armed: true, safety: 'safe' });
        return tell('allow', 'Armed: every pre-flight check is green');
      case 'arm-refused':
        return tell('stop', `Arming refused: ${d.failed.join('; ')}`);
      case 'run-started':
        sink.status({ phase: run.aborted ? 'aborted' : 'running', safety: 'safe', reason: null });
        return tell('allow', 'Run started');
      case 'command-refused':
      case 'stop':
        // A stopped run cannot stay paused: let it reach its end.
        run.paused?.release();
        run.paused = null;
        sink.status({
          safety: 'stopped',
          armed: false,
          reason: d.message,
          ...(d.reason.code === 'operator-abort' ? { phase: 'aborted' as const } : {}),
        });
        return tell('stop', d.message);
      case 'disarmed':
        sink.status({ armed: false });
        return;
    }
  }

  private ended(run: ActiveRun, r: SupervisedRunResult): void {
    const elapsed = this.runTime(run);
    const level = r.outcome === 'success' ? 'info' : 'warn';
    if (run.aborted || r.outcome === 'aborted') {
      log(run.sink, 'warn', 'run', `run aborted after ${r.actions} action(s): ${ABORTED}`);
      run.sink.status({ phase: 'aborted', reason: ABORTED, armed: false, elapsed });
      return;
    }
    const patch: Partial<RunStatus> =
      r.outcome === 'success'
        ? { phase: 'finished', reason: 'Goal reached' }
        : { phase: 'failed', reason: r.reason };
    log(run.sink, level, 'run', `run ${r.outcome} after ${r.actions} action(s): ${r.reason}`);
    run.sink.status({ ...patch, armed: false, elapsed });
  }

  private release(run: ActiveRun): void {
    if (this.active !== run) return;
    this.active = null;
    this.changed();
  }

  private runTime(run: ActiveRun): number {
    return Math.max(0, (performance.now() - run.t0) / 1000);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

function log(sink: RunSink, level: 'info' | 'warn' | 'error', source: string, message: string): void {
  const event: ConsoleEvent = { type: 'log', at: Date.now(), level, source, message };
  sink.emit(event);
}

function modelName(model: ModelRequest): string {
  if (model.kind === 'auto') return 'the auto model (fine or Parareal, chosen for the workers)';
  if (model.kind !== 'parareal') return `the ${model.kind} model`;
  return `Parareal (${model.tolerance ? `adaptive, at most ${model.iterations}` : model.iterations} iteration(s))`;
}
