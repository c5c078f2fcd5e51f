/**
 * The console's run controller on a lab: a dry run on the in-process virtual lab, a real run on
 * the configured lab. Either way the run is the supervised loop `parapush run` uses (motion
 * capture -> state -> planner -> supervisor -> robot, through the real protocols), reporting the
 * same events (run/run-report.ts) into the same recorder (run/run-recorder.ts); this maps the
 * operator's planner settings onto it and adds the operator's own steps (arm, pause, resume).
 * Once the run has reported how it ended, the sink hears `ended()`: the run's log closes then.
 *
 * The runs belong to the console's run owner (run/run-owner.ts): the status, clock, abort, pause,
 * log and the fine workers, which outlive runs: started by the first run (or what-if), they keep
 * the scenes compiled, so later runs plan their first step at once instead of waiting seconds for
 * workers to start and compile; close() stops them.
 *
 * A real run waits, after green pre-flight checks, for the operator's explicit arm command.
 * Abort is synchronous end to end: abort() fires the owner's AbortSignal, whose listener in
 * supervisedRun calls supervisor.abort(), which posts the abort to the run's supervisor in the
 * safety thread on the same stack; the thread writes the stop to the robot as it receives it.
 */
import type { ConsoleEvent } from '#contract/console-api';
import type { PlannerSettings } from '#contract/planner-settings';
import type { RunMode } from '#contract/run-lifecycle';
import { wallSeconds } from '#contract/time';
import type { FinePool } from '../parareal/fine-pool';
import type { ModelRequest } from '../parareal/model-choice';
import { planningModel } from '../planning/task-run';
import type { Scene } from '#contract/scene';
import type { Task } from '../planning/task-file';
import type { LabLink } from '../lab-link/lab-link';
import type { RunOwner } from '../run/run-owner';
import { ABORTED } from '../run/run-report';
import { supervisedRun, type ArmGate, type SupervisedRunOptions } from '../run/supervised-run';
import { PROBE_NEEDS_PUSHER, probeRunParts } from '../physics-probe/probe-run';
import { withLabPhysics } from '../physics-probe/lab-fit';
import { armReadiness } from '#contract/arm-readiness';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { LabConnection } from '../lab-link/lab-connection';
import {
  NO_REAL_LAB,
  type AbortSource,
  type RunController,
  type RunRequest,
  type RunSink,
} from './run-controller';
import { baseTask, taskForRun } from '../planning/task-for-run';
import { modelForRun, sceneForRun } from './task-from-settings';

export interface LabRunControllerOptions {
  /** Where dry runs go: the in-process virtual lab. */
  virtualLab: LabConnection;
  /** Where real runs go; null when no real lab is configured (real runs are refused). */
  realLab: LabConnection | null;
  /** Folder of the shipped task files (resources/tasks). */
  tasksDir: string;
  /** The console's run owner: its runs' status, clock, abort, pause, log and warm fine workers. */
  owner: RunOwner;
  seed?: number;
  /** Rate of live-state events for the live view (Hz). */
  liveRateHz?: number;
}

interface ActiveRun {
  mode: RunMode;
  sink: RunSink;
  /** What makes it an identification run (physics-probe/): its planner and rest; null for a task's run. */
  probe: Pick<SupervisedRunOptions, 'planner' | 'restAfterAction'> | null;
  /**
   * The pending wait for the operator's arm command, when the run is waiting: what the Arm is
   * judged by, and how to end the wait.
   */
  armed: { gate: ArmGate; confirm: () => void } | null;
}

export class LabRunController implements RunController {
  private active: ActiveRun | null = null;
  /** The previous run winding down (pool closing, link listeners detaching). */
  private ending: Promise<void> = Promise.resolve();
  private session: LabConnection;
  private readonly listeners = new Set<() => void>();
  readonly owner: RunOwner;

  constructor(private readonly o: LabRunControllerOptions) {
    this.session = o.realLab ?? o.virtualLab;
    this.owner = o.owner;
  }

  /** The lab the console shows: that of the current or last run (the real one when configured). */
  currentConnection(): LabConnection {
    return this.session;
  }

  /** Whether a run owns the lab now (one that was aborted and is still winding down included). */
  runInProgress(): boolean {
    return this.active !== null;
  }

  /** Fine workers of the run under way, or 0 between runs. */
  runningWorkers(): number {
    return this.active ? this.owner.workers : 0;
  }

  get workers(): number {
    return this.owner.workers;
  }

  /** Whether the fine workers have started (they stay up between runs). */
  workersStarted(): boolean {
    return this.owner.workersStarted();
  }

  /** The console's fine workers (the owner's): started on first use, warm for every later run and what-if. */
  finePool(): FinePool {
    const starting = !this.owner.workersStarted();
    const pool = this.owner.finePool();
    if (starting) this.changed();
    return pool;
  }

  /** Aborts any run, waits for it to let go of the lab and stops the fine workers. */
  async close(): Promise<void> {
    this.abort('remote');
    await this.ending;
    await this.owner.close();
  }

  /** Calls back when a run starts or ends, or the lab in use changes; returns unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  unavailable(mode: RunMode): string | null {
    return mode === 'real' && !this.o.realLab ? NO_REAL_LAB : null;
  }

  async start(request: RunRequest, sink: RunSink): Promise<void> {
    // The console starts a run once the last has let go of the lab (the core waits for its end).
    if (this.active) throw new Error('a run is already in progress');
    const session = request.mode === 'dry' ? this.o.virtualLab : this.o.realLab;
    if (!session) throw new Error(NO_REAL_LAB);
    // A real run plans with the physics fitted for this scene on the lab, when a fit saved it. The
    // virtual lab's world is made from the run's scene: a dry run keeps the scene's own.
    const asSet = sceneForRun(request.scene, request.settings);
    const scene = request.mode === 'real' ? withLabPhysics(asSet) : asSet;
    if (request.probe && endEffectorOf(scene).discRadius === undefined) throw new Error(PROBE_NEEDS_PUSHER);
    const taskAsSet = taskForRun(baseTask(scene, this.o.tasksDir), { settings: request.settings });
    const probe = request.probe ? probeRunParts(taskAsSet) : null;
    const task = probe?.task ?? taskAsSet;
    const model = probe?.model ?? modelForRun(request.settings);
    const run: ActiveRun = { mode: request.mode, sink, armed: null, probe };
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
    if (this.owner.aborted) {
      // Aborted while connecting: nothing ran, and nothing more will be reported.
      this.release(run);
      sink.ended();
      return;
    }
    log(
      sink,
      'info',
      'lab',
      probe
        ? `connected; identification run: ${probe.pushes.length} probing pushes, predicted with the fine model`
        : `connected; planning with ${modelName(model, task, scene, this.owner.workers)}, ${task.planner.kind} planner`,
    );
    this.ending = this.execute(run, link, task, model, request.settings);
  }

  async arm(): Promise<void> {
    const run = this.active;
    if (!run || run.mode !== 'real') throw new Error('there is no real run to arm');
    if (!run.armed) throw new Error('the run is not waiting to be armed yet: it is getting ready');
    // The checks the run needs before Arm, as they stand at the press (contract/arm-readiness.ts).
    const waiting = run.armed;
    const readiness = armReadiness(await waiting.gate.checks());
    if (!readiness.ready) throw new Error(`Arm refused: ${readiness.reason}`);
    // Aborted (or armed by another client) while the checks were read.
    if (run.armed !== waiting) throw new Error('the run is no longer waiting to be armed');
    const { confirm } = waiting;
    run.armed = null;
    this.owner.report({ awaitingArm: false });
    log(run.sink, 'warn', 'operator', 'Real run armed by the operator');
    confirm();
  }

  /**
   * Opens the configured real lab on `scene` between runs (the operator's Connect), so that its
   * checklist, the calibration wizard and jogging work before any run; a run reuses the link.
   */
  async connect(scene: Scene, settings: PlannerSettings): Promise<void> {
    const lab = this.o.realLab;
    if (!lab) throw new Error(NO_REAL_LAB);
    if (this.active) throw new Error('a run is in progress: it holds the lab');
    this.session = lab;
    this.changed();
    // The scene as the next run will ask for it, so the run finds this link open.
    await lab.linkFor(withLabPhysics(sceneForRun(scene, settings)));
  }

  /** Closes the real lab's link between runs (the operator's Disconnect). */
  async disconnect(): Promise<void> {
    const lab = this.o.realLab;
    if (!lab) throw new Error(NO_REAL_LAB);
    if (this.active) throw new Error('a run is in progress: abort it first');
    await lab.disconnect();
  }

  /**
   * Opens the lab a run of this mode needs, before anything of the run is recorded: a real lab
   * that cannot be reached (or has no setup yet) refuses the start, and no failed session is left.
   */
  async prepare(mode: RunMode, scene: Scene, settings: PlannerSettings): Promise<void> {
    if (mode !== 'real') return;
    if (!this.o.realLab) throw new Error(NO_REAL_LAB);
    if (this.active) throw new Error('a run is already in progress');
    try {
      await this.o.realLab.linkFor(withLabPhysics(sceneForRun(scene, settings)));
    } catch (err) {
      throw new Error(`cannot connect to the lab: ${(err as Error).message}`, { cause: err });
    }
  }

  async pause(): Promise<void> {
    const run = this.active;
    if (!run || this.owner.lifecycle.state !== 'running') throw new Error('there is no running run to pause');
    this.owner.pause('Paused by operator: the arm holds still after this action');
    log(run.sink, 'info', 'operator', 'Run paused');
  }

  async resume(): Promise<void> {
    const run = this.active;
    if (!run || this.owner.lifecycle.state !== 'paused') throw new Error('there is no paused run to resume');
    this.owner.resume();
    log(run.sink, 'info', 'operator', 'Run resumed');
  }

  abort(_source: AbortSource): void {
    const run = this.active;
    if (!run) return;
    // First the stop (synchronously, through the supervisor) and its status, once: the owner's.
    this.owner.abort(ABORTED);
    const waiting = run.armed;
    run.armed = null;
    waiting?.confirm();
  }

  private async execute(
    run: ActiveRun,
    link: LabLink,
    task: Task,
    model: ModelRequest,
    settings: PlannerSettings,
  ): Promise<void> {
    try {
      await supervisedRun({
        link,
        task,
        model,
        coarse: settings.coarseModel,
        owner: this.owner,
        seed: this.o.seed ?? 1,
        liveRateHz: this.o.liveRateHz ?? 30,
        ...(run.mode === 'real' ? { confirmArm: (gate: ArmGate) => this.waitForArm(run, gate) } : {}),
        ...(run.probe ? { planner: run.probe.planner, restAfterAction: run.probe.restAfterAction } : {}),
      });
    } catch {
      // Reported by the run itself (its last event says why it failed).
    } finally {
      this.release(run);
      run.sink.ended();
    }
  }

  /**
   * The run waits for the operator's Arm: the Run view offers it while the checks the run needs
   * are green (the same rule arm() applies at the press), and says what is red otherwise.
   */
  private waitForArm(run: ActiveRun, gate: ArmGate): Promise<void> {
    if (this.owner.aborted) return Promise.resolve();
    this.owner.report({
      reason: 'Waiting for Arm: the Run view arms once the checks the run needs are green',
      awaitingArm: true,
    });
    log(run.sink, 'warn', 'run', 'Waiting for the operator to arm the real run (Run view)');
    return new Promise((resolve) => (run.armed = { gate, confirm: resolve }));
  }

  private release(run: ActiveRun): void {
    if (this.active !== run) return;
    this.active = null;
    this.changed();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

function log(sink: RunSink, level: 'info' | 'warn' | 'error', source: string, message: string): void {
  const event: ConsoleEvent = { type: 'log', at: wallSeconds(), level, source, message };
  sink.emit(event);
}

/** The model in words; for `auto`, the one it chooses for this task on these workers and why. */
function modelName(model: ModelRequest, task: Task, scene: Scene, workers: number): string {
  if (model.kind === 'auto') {
    const chosen = planningModel(task, scene, model, workers);
    return `${modelName(chosen.model, task, scene, workers)}, chosen by ${chosen.reason ?? 'auto'}`;
  }
  if (model.kind !== 'parareal') return `the ${model.kind} model`;
  return `Parareal (${model.tolerance ? `adaptive, at most ${model.iterations}` : model.iterations} iteration(s))`;
}
