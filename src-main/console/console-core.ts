/**
 * The console core: the one implementation of the console API, shared by the Electron shell and
 * web mode. It validates every command, owns the current scene and planner settings, and
 * forwards start/pause/abort to the injected run controller.
 */
import type { LabPhysicsFit } from '#contract/lab-physics-fit';
import { fitLabPhysics, PROBE_LOG_LABEL } from '../physics-probe/lab-fit';
import { poolReplay } from '../lab-physics/prediction-error';
import {
  commandSchema,
  eventSchema,
  formatIssues,
  type CommandOf,
  type CommandResponse,
  type CommandResult,
  type CommandType,
  type ConsoleCommand,
  type ConsoleEvent,
  type ConsoleSnapshot,
  type FoxgloveStatus,
  type RunStatus,
  type SceneRef,
  type SceneSource,
  type ValidationProblem,
} from '#contract/console-api';
import { plannerPresets, type PlannerPresetName, type PlannerSettings } from '#contract/planner-settings';
import {
  advanceRun,
  describeRejection,
  isRunActive,
  type RunEvent,
  type RunMode,
  type RunRejection,
} from '#contract/run-lifecycle';
import { runOutcomeOf } from '#contract/run-end';
import { parseScene, problemsOf, SceneFileError } from '#contract/scene-file';
import { sceneSchema, type Scene } from '#contract/scene';
import { wallSeconds } from '#contract/time';
import { offeredPlanners } from '../planning/planners';
import { RunOwner } from '../run/run-owner';
import { CalibrationWizard, robotPivot } from './calibration-wizard';
import { ProgramRestarter } from './program-restart';
import { RobotRecovery } from './robot-recovery';
import type { ConnectionSource, LabStatus } from '../lab-link/status-source';
import { UnconfiguredConnections } from '../lab-link/status-source';
import { NO_RUN_CONTROLLER, type AbortSource, type RunController, type RunSink } from './run-controller';
import { SceneLibrary } from './scene-library';
import { userScenesDir } from '../common/paths';
import { SettingsStore } from './settings-store';
import { SessionService } from './session-service';
import { LabStateFeed, type TableReading } from './lab-state-feed';
import type { FoxgloveSwitch } from './foxglove-switch';
import { liveViewNotice } from '../session/foxglove-live';
import { LabControl } from './lab-control';
import type { WhatIfPlannerFactory } from '../session/what-if';

/** A command type's namespace: the part before the dot ("scene" of "scene.load"). */
type Namespace = CommandType extends `${infer N}.${string}` ? N : never;
/** The commands of one namespace. */
type CommandsOf<N extends Namespace> = Extract<ConsoleCommand, { type: `${N}.${string}` }>;
/** One handler per namespace, answering each of its commands with that command's result. */
type NamespaceHandlers = {
  [N in Namespace]: (
    command: CommandsOf<N>,
  ) => Promise<CommandResult<CommandsOf<N>['type']>> | CommandResult<CommandsOf<N>['type']>;
};

function namespaceOf(command: ConsoleCommand): Namespace {
  return command.type.slice(0, command.type.indexOf('.')) as Namespace;
}

export interface ConsoleCoreOptions {
  /** Folder of the shipped scenes (resources/scenes in the app), read only. */
  scenesDir: string;
  /** Folder of the operator's scenes, where saves go; default: paths.ts userScenesDir(). */
  userScenesDir?: string;
  /** Where planner settings persist; null keeps them in memory only. */
  settingsFile?: string | null;
  runController?: RunController;
  connections?: ConnectionSource;
  /** Wall clock, s since the epoch (injectable for tests). */
  now?: () => number;
  /** Folder of session logs (src-main/session/sessions-dir.ts has the default); absent: no logs. */
  sessionsDir?: string | null;
  /** Builds planners for what-if re-planning of logged steps (comes with the MPC run controller). */
  whatIf?: WhatIfPlannerFactory;
  /** The Setup view's calibration wizard on the connected lab; absent: no lab to calibrate. */
  calibration?: CalibrationWizard;
  /** Recovery of the connected robot from a protective stop; absent: no lab, nothing to recover. */
  recovery?: RobotRecovery;
  /** The checklist's "Restart control program"; absent: no lab, no program to restart. */
  programRestart?: ProgramRestarter;
  /**
   * The scene the console opens on: the one its lab was started on (console-lab.ts), so the table
   * view, the pre-flight checklist and the next run speak of the same scene from the start.
   */
  scene?: { scene: Scene; file: string | null; source?: SceneSource };
  /** The live Foxglove view, an operator setting: told every message a run's session log gets. */
  foxglove?: FoxgloveSwitch;
  /** The configured real lab between runs (Connect, Disconnect, a first setup); absent: none. */
  labControl?: LabControl;
  /** The lab's table now, which the table view follows between runs (lab-state-feed.ts); absent: no lab. */
  tableReading?: TableReading;
}

export type EventListener = (event: ConsoleEvent) => void;

const abortSourceWords = {
  button: 'Abort button',
  'escape-key': 'Esc key',
  'space-key': 'Space key',
  remote: 'remote client',
} as const;

export class ConsoleCore {
  private readonly library: SceneLibrary;
  private readonly settings: SettingsStore;
  /** Absent: a console without a lab, which refuses every run (NO_RUN_CONTROLLER). */
  private readonly runController: RunController | undefined;
  private readonly connections: ConnectionSource;
  private readonly now: () => number;
  private readonly listeners = new Set<EventListener>();
  private scene: Scene | null = null;
  private sceneFile: string | null = null;
  private sceneSource: SceneSource | null = null;
  private sceneDirty = false;
  /**
   * The console's run owner (the run controller's): the one writer of the run status, its clock,
   * abort and pause, and the run's log, which gets every event the core publishes during a run.
   */
  private readonly run: RunOwner;
  /** While an abort reaches the controller: the events its stop reports, published after the request. */
  private held: ConsoleEvent[] | null = null;
  /** A run start is between its awaits, before the lifecycle says `starting`. */
  private startPending = false;
  /** Resolves once the last run started has reported its end and its log is closed. */
  private runOver: Promise<void> = Promise.resolve();
  private readonly unsubscribeConnections: () => void;
  private readonly sessions: SessionService;
  private readonly calibration: CalibrationWizard;
  private readonly recovery: RobotRecovery;
  private readonly programRestart: ProgramRestarter;
  /** The lab view last published (JSON), so that only its changes are. */
  private lastLab = '';
  private readonly foxglove: FoxgloveSwitch | null;
  private readonly labControl: LabControl;
  private readonly labState: LabStateFeed | null;

  constructor(options: ConsoleCoreOptions) {
    this.library = new SceneLibrary(options.scenesDir, options.userScenesDir ?? userScenesDir());
    this.settings = new SettingsStore(options.settingsFile ?? null);
    this.runController = options.runController;
    this.connections = options.connections ?? new UnconfiguredConnections();
    this.now = options.now ?? wallSeconds;
    this.foxglove = options.foxglove ?? null;
    this.labControl =
      options.labControl ??
      new LabControl({ realLab: null, connect: async () => undefined, disconnect: async () => undefined });
    // A controller without an owner runs no workers: the core's own owner then only keeps the status.
    this.run = this.runController?.owner ?? new RunOwner({ workers: 1, now: this.now });
    this.run.publishTo((event) => this.publish(event));
    this.calibration = options.calibration ?? new CalibrationWizard({ session: () => null });
    this.recovery = options.recovery ?? new RobotRecovery({ session: () => null });
    this.programRestart =
      options.programRestart ?? new ProgramRestarter({ session: () => null, runInProgress: () => false });
    this.sessions = new SessionService({
      dir: options.sessionsDir ?? null,
      whatIf: options.whatIf,
      publish: (event) => this.publish(event),
      log: (level, message) => this.log(level, 'sessions', message),
      runActive: () => this.runActive(),
      ...(options.foxglove ? { liveTap: options.foxglove.tap } : {}),
    });
    // Logs cut short by a crash are named at start; the operator recovers them from the Sessions view.
    void this.sessions
      .reportLogsNeedingRecovery()
      .catch((err: Error) => this.log('error', 'sessions', err.message));
    if (options.scene) {
      this.scene = options.scene.scene;
      this.sceneFile = options.scene.file;
      this.sceneSource = options.scene.file === null ? null : (options.scene.source ?? 'shipped');
    }
    this.connections.useScene?.(this.scene);
    this.unsubscribeConnections = this.connections.subscribe((status) => {
      this.publish({ type: 'connections', connections: status.connections });
      this.publish({ type: 'preflight', report: status.preflight });
      this.labChanged(status);
    });
    this.labChanged(this.connections.current());
    this.labState = options.tableReading
      ? new LabStateFeed({
          read: options.tableReading,
          // A run sends its own states (with its time and path); a playback shows the recording.
          quiet: () => this.runActive() || this.startPending || this.sessions.playbackOpen,
          publish: (event) => this.publish(event),
        })
      : null;
  }

  /** The lab view when it changes, and the robot's own safety while no run speaks for it. */
  private labChanged(status: LabStatus): void {
    const lab = status.lab ?? null;
    const key = JSON.stringify(lab);
    if (key !== this.lastLab) {
      this.lastLab = key;
      this.publish({ type: 'lab', lab });
    }
    this.followRobotSafety(status);
  }

  /**
   * The status bar's SAFETY cell is the robot's own safety mode (what the Setup view's checklist
   * reads) before the first run and while a run starts unarmed; once a run's supervisor has armed
   * or stopped, the run's word holds, and after the run it stays the run's last word.
   */
  private followRobotSafety(status: LabStatus): void {
    const lifecycle = this.run.lifecycle.state;
    const unarmed = lifecycle === 'starting' && !this.run.status.armed;
    if (lifecycle !== 'idle' && !unarmed) return;
    const safety = status.safety ?? 'unknown';
    if (safety !== this.run.status.safety) this.run.report({ safety });
  }

  /** Registers a listener for every event; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.labState?.dispose();
    void this.sessions.dispose();
    this.unsubscribeConnections();
    this.listeners.clear();
  }

  /** Validates and executes one command from either transport. Never throws. */
  async handle(raw: unknown): Promise<CommandResponse> {
    const parsed = commandSchema.safeParse(raw);
    if (!parsed.success) return { ok: false, error: `malformed command: ${formatIssues(parsed.error)}` };
    try {
      return { ok: true, result: await this.execute(parsed.data) };
    } catch (err) {
      const message = err instanceof SceneFileError ? err.message : (err as Error).message;
      this.log('error', 'console', `${parsed.data.type}: ${message}`);
      return { ok: false, error: message };
    }
  }

  snapshot(): ConsoleSnapshot {
    return {
      scene: this.scene,
      sceneFile: this.sceneFile,
      sceneSource: this.sceneSource,
      settings: this.settings.get(),
      presets: (Object.keys(plannerPresets) as PlannerPresetName[]).map((name) => ({
        name,
        label: plannerPresets[name].label,
      })),
      planners: offeredPlanners(),
      run: this.run.status,
      realRun: this.unavailable('real'),
      ...this.labStatus(),
      foxglove: this.foxglove?.status() ?? { url: null },
    };
  }

  /** What the snapshot carries of the lab (the status's other fields are the core's own business). */
  private labStatus(): Pick<ConsoleSnapshot, 'connections' | 'preflight' | 'lab'> {
    const status = this.connections.current();
    return { connections: status.connections, preflight: status.preflight, lab: status.lab ?? null };
  }

  /**
   * Each command goes to its namespace's handler (the part of its type before the dot), as the
   * sessions' and playback's go to SessionService.
   */
  private execute(command: ConsoleCommand): Promise<CommandResult<CommandType>> | CommandResult<CommandType> {
    const handle = this.handlers[namespaceOf(command)] as (
      c: ConsoleCommand,
    ) => Promise<CommandResult<CommandType>>;
    return handle(command);
  }

  private readonly handlers: NamespaceHandlers = {
    snapshot: () => this.snapshot(),
    scene: (c) => this.sceneCommand(c),
    settings: (c) => ({ settings: this.settingsCommand(c) }),
    run: (c) => this.runCommand(c),
    sessions: (c) => this.sessions.handle(c) as Promise<CommandResult<CommandsOf<'sessions'>['type']>>,
    playback: (c) => this.sessions.handle(c) as Promise<CommandResult<CommandsOf<'playback'>['type']>>,
    connections: () => ({ connections: this.connections.current().connections }),
    lab: (c) => this.labCommand(c),
    setup: (c) => this.createSetup(c.template),
    foxglove: async (c) => ({ foxglove: await this.setFoxglove(c.port) }),
    robot: (c) => (c.type === 'robot.recover' ? this.recoverRobot(c.confirm) : this.restartProgram()),
    physics: () => this.fitPhysics(),
    calibration: async (c) => {
      if (c.type !== 'calibration.jog-check') return { calibration: await this.calibrate(c) };
      this.refuseJogDuringRun();
      return { check: this.calibration.checkJog(c.dx, c.dy) };
    },
  };

  private sceneCommand(command: CommandsOf<'scene'>): CommandResult<CommandsOf<'scene'>['type']> {
    switch (command.type) {
      case 'scene.list':
        return { scenes: this.library.list(), saveDir: this.library.userDir };
      case 'scene.load':
        return this.loadScene(command);
      case 'scene.import':
        return this.importScene(command.name, command.text);
      case 'scene.save':
        return this.saveScene(command.file, command.overwrite);
      case 'scene.validate':
        return { problems: validateScene(command.scene) };
      case 'scene.update': {
        const problems = validateScene(command.scene);
        if (problems.length > 0) return { scene: this.scene, file: this.sceneFile, problems };
        return this.setScene(sceneSchema.parse(command.scene), this.sceneFile, true, this.sceneSource);
      }
    }
  }

  private settingsCommand(command: CommandsOf<'settings'>): PlannerSettings {
    switch (command.type) {
      case 'settings.get':
        return this.settings.get();
      case 'settings.set':
        return this.changeSettings(command.settings);
      case 'settings.preset':
        return this.changeSettings(plannerPresets[command.preset].settings);
    }
  }

  private async runCommand(command: CommandsOf<'run'>): Promise<{ status: RunStatus }> {
    switch (command.type) {
      case 'run.start':
        // The jog has the arm: a run would command it at the same time.
        if (this.calibration.jogInProgress)
          throw new Error('the arm is jogging (calibration): wait for it to stop');
        return { status: await this.startRun(command.mode, command.probe === true) };
      // The lifecycle says whether the operator's command may happen now; the controller acts on
      // it and reports the transition (pause, resume) or the supervisor's start (after arm).
      case 'run.arm':
        this.refuseUnless({ type: 'arm' });
        await this.controller().arm();
        return { status: this.run.status };
      case 'run.pause':
        this.refuseUnless({ type: 'pause' });
        await this.controller().pause();
        return { status: this.run.status };
      case 'run.resume':
        this.refuseUnless({ type: 'resume' });
        await this.controller().resume();
        return { status: this.run.status };
      case 'run.abort':
        return { status: this.abort(command.source) };
    }
  }

  private async labCommand(command: CommandsOf<'lab'>): Promise<CommandResult<'lab.get'>> {
    switch (command.type) {
      case 'lab.get':
        return this.labControl.info();
      case 'lab.connect': {
        if (this.runActive() || this.startPending)
          throw new Error('a run holds the lab: connect between runs');
        this.log('info', 'lab', 'connecting to the lab (operator)');
        const info = await this.labControl.connect(this.scene, this.settings.get());
        this.log('info', 'lab', `connected to the ${info.description}`);
        return info;
      }
      case 'lab.disconnect': {
        if (this.runActive() || this.startPending) throw new Error('a run holds the lab: abort it first');
        this.calibration.stopJog();
        const info = await this.labControl.disconnect();
        this.log('info', 'lab', `disconnected from the ${info.description}`);
        return info;
      }
    }
  }

  private createSetup(template: CommandOf<'setup.create'>['template']): CommandResult<'setup.create'> {
    const { info, file } = this.labControl.createSetup(template);
    this.log(
      'info',
      'setup',
      `first setup ${template.name} written to ${file} from the template: calibrate both stages before a run`,
    );
    return info;
  }

  /** A run owns the arm from its start: a jog would command it at the same time. */
  private refuseJogDuringRun(): void {
    if (this.runActive() || this.startPending)
      throw new Error(
        `the arm cannot be jogged while a run is ${this.startPending ? 'starting' : this.run.status.phase}: the run owns the arm (abort it, or wait for its end)`,
      );
  }

  private async calibrate(
    command: Exclude<
      Extract<ConsoleCommand, { type: `calibration.${string}` }>,
      { type: 'calibration.jog-check' }
    >,
  ) {
    const w = this.calibration;
    if (command.type === 'calibration.jog' || command.type === 'calibration.pivot-turn')
      this.refuseJogDuringRun();
    // A run owns the lab: measuring or changing its frames under it would corrupt both.
    if (command.type !== 'calibration.get' && this.runActive())
      throw new Error('calibration cannot change while a run is in progress');
    switch (command.type) {
      case 'calibration.get':
        return w.state();
      case 'calibration.capture':
        return w.capture(command.stage, command.table);
      case 'calibration.remove':
        return w.remove(command.stage, command.index);
      case 'calibration.clear':
        return w.clear(command.stage);
      case 'calibration.jog': {
        const moved = await w.jog(command.dx, command.dy, command.confirmCrossing ?? false);
        this.log(
          'info',
          'calibration',
          `jogged the tool ${(moved * 1000).toFixed(1)} mm towards (${(command.dx * 1000).toFixed(0)}, ${(command.dy * 1000).toFixed(0)}) mm in the robot base frame`,
        );
        return w.state();
      }
      case 'calibration.fit':
        return w.fit(command.stage, command.kind);
      case 'calibration.save': {
        const state = w.save(command.stage);
        const stage = state[command.stage];
        this.log(
          'info',
          'calibration',
          `${command.stage === 'mocap' ? 'motion capture -> table' : 'table -> robot base'} calibration saved to ${stage.saved?.file} (residual ${((stage.fit?.rms ?? 0) * 1000).toFixed(1)} mm RMS)`,
        );
        return state;
      }
      case 'calibration.pivot-turn': {
        const state = await w.measurePusherPivot();
        const b = robotPivot(state);
        this.log(
          'info',
          'calibration',
          `turned the tool about the pusher's tip: pivot offset ${pivotWords(b?.measured ?? null)}`,
        );
        return state;
      }
      case 'calibration.pivot-place':
        return w.measureSliderPivot(command.slider);
      case 'calibration.pivot-save': {
        const state = w.savePivots();
        this.log('info', 'calibration', `rigid-body pivot offsets saved to ${state.pivots.saved?.file}`);
        return state;
      }
    }
  }

  /**
   * Recovery from a protective stop, on the operator's confirmation and only between runs (a run
   * owns the robot). The recovery checks the robot's own safety mode; the connections and the
   * pre-flight checklist then show the safety mode it leaves.
   */
  /** The operator turns the live Foxglove view on or off; the log says where it serves. */
  private async setFoxglove(port: number | null): Promise<FoxgloveStatus> {
    if (!this.foxglove) throw new Error('this console has no Foxglove live view');
    const status = await this.foxglove.set(port);
    this.log('info', 'foxglove', status.url ? liveViewNotice(status.url) : 'Foxglove live view off');
    return status;
  }

  private async recoverRobot(confirm: boolean) {
    // A start still between its awaits (the last run's log closing, this run's log opening) has
    // not reached the lifecycle yet, but owns the lab as much as a starting run.
    if (this.runActive() || this.startPending)
      throw new Error(
        `the robot cannot be recovered while a run is ${this.startPending ? 'starting' : this.run.status.phase}: abort the run first`,
      );
    if (confirm)
      this.log(
        'warn',
        'operator',
        'Recovery from the protective stop confirmed by the operator (workspace checked clear)',
      );
    const result = await this.recovery.recover(confirm);
    this.log('info', 'robot', result.message);
    return result;
  }

  /** The operator's "Restart control program", between runs only; the log says what it did. */
  private async restartProgram() {
    if (this.runActive() || this.startPending)
      throw new Error(
        `the control program cannot be restarted while a run is ${this.startPending ? 'starting' : this.run.status.phase}: the run restarts it`,
      );
    const result = await this.programRestart.restart();
    this.log(result.restarted ? 'warn' : 'info', 'robot', result.message);
    return result;
  }

  /**
   * Abort first, words after: the controller hears of it before anything else happens, and the
   * arm is stopped on this call stack. What the stop reports meanwhile is held back and published
   * after the request, so the event log reads in causal order: the request, then the stop.
   */
  private abort(source: AbortSource): RunStatus {
    // Read the lifecycle first (the controller reports the abort synchronously), then abort.
    const active = this.runActive();
    const at = this.now();
    // The operator's action goes into the run's log (a memory append) before the stop it causes.
    this.run.operator('run.abort', abortSourceWords[source]);
    const held: ConsoleEvent[] = [];
    this.held = held;
    try {
      this.calibration.stopJog();
      this.runController?.abort(source);
    } finally {
      this.held = null;
      this.publish({
        type: 'log',
        at,
        level: 'warn',
        source: 'operator',
        message: active
          ? `Abort requested by operator (${abortSourceWords[source]})`
          : `Abort pressed (${abortSourceWords[source]}): no run in progress`,
      });
      for (const event of held) this.publish(event);
    }
    return this.run.status;
  }

  /**
   * Fits the scene's physics to its identification runs in the sessions folder, on the run
   * owner's fine workers, and saves it where the lab's runs of the scene find it (physics-probe/lab-fit.ts).
   */
  private async fitPhysics(): Promise<LabPhysicsFit> {
    if (this.runActive() || this.startPending) throw new Error('a run is in progress: fit once it has ended');
    if (!this.scene) throw new Error('load a scene first');
    const dir = this.sessions.dir;
    if (!dir) throw new Error('no sessions folder is configured: there are no identification runs to fit');
    return fitLabPhysics({ sessionsDir: dir, scene: this.scene, replay: poolReplay(this.run.finePool()) });
  }

  private async startRun(mode: RunMode, probe = false): Promise<RunStatus> {
    const start: RunEvent = { type: 'start', mode };
    // A run aborted before may still be winding down (stopping): the start waits for it below.
    this.refuseUnless(start, 'ending');
    if (this.recovery.inProgress)
      throw new Error('the robot is being recovered from a protective stop: start the run once that is done');
    if (!this.scene) throw new Error('load a scene before starting a run');
    // A run that cannot start at all (no lab for it) is refused before anything of it is
    // recorded: a refusal is not a failed run.
    const unavailable = this.unavailable(mode);
    if (unavailable) throw new Error(unavailable);
    if (this.startPending) throw new Error('a run is already starting');
    this.startPending = true;
    try {
      // The last run's last events (and its log) come first, so that nothing of it lands in the
      // next run's status or log.
      await this.runOver;
      this.refuseUnless(start);
      // The lab the run needs, opened before anything of the run is recorded: a lab that cannot
      // be reached (or has no setup yet) refuses the start, and no failed session is left behind.
      await this.controller().prepare?.(mode, this.scene, this.settings.get());
    } catch (err) {
      this.startPending = false;
      throw err;
    }
    const scene = this.scene;
    let over!: () => void;
    this.runOver = new Promise<void>((resolve) => (over = resolve));
    // The run has reported its last event and let go of the lab: its log ends, then the next run
    // may start. Nothing of the status changes (the run is stopping, and its phase says how it ends).
    const end = (): void => {
      this.run.release();
      void this.sessions.runEnded().then(over);
    };
    const sink: RunSink = {
      status: (patch) => this.run.report(patch),
      emit: (event) => this.publish(event),
      ended: end,
    };
    // The run's log, with the operator's start (run/run-recorder.ts).
    let recorder: Awaited<ReturnType<SessionService['startRecording']>>;
    try {
      recorder = await this.sessions.startRecording(
        mode,
        scene,
        this.settings.get(),
        probe ? PROBE_LOG_LABEL : undefined,
      );
    } finally {
      this.startPending = false;
    }
    this.run.begin(mode, recorder);
    // A starting run has armed nothing yet: the bar shows the robot's own safety until it does.
    this.followRobotSafety(this.connections.current());
    try {
      await this.controller().start(
        { mode, scene, settings: this.settings.get(), ...(probe ? { probe } : {}) },
        sink,
      );
    } catch (err) {
      this.run.report({
        event: { type: 'end', outcome: runOutcomeOf({ cause: 'error' }), reason: (err as Error).message },
        armed: false,
      });
      // Nothing ran: this failure is the run's last event.
      end();
      throw err;
    }
    return this.run.status;
  }

  /** Throws the operator's words when the run's lifecycle rejects `event` now (but for `allowed`). */
  /** Why a run of this mode cannot start now, or null. */
  private unavailable(mode: RunMode): string | null {
    if (!this.runController) return NO_RUN_CONTROLLER;
    return this.runController.unavailable?.(mode) ?? null;
  }

  /** The run controller; a console without one refuses the command. */
  private controller(): RunController {
    if (!this.runController) throw new Error(NO_RUN_CONTROLLER);
    return this.runController;
  }

  private refuseUnless(event: RunEvent, allowed?: RunRejection['code']): void {
    const t = advanceRun(this.run.lifecycle, event);
    if (!t.ok && t.rejection.code !== allowed) throw new Error(describeRejection(t.rejection));
  }

  private runActive(): boolean {
    return isRunActive(this.run.lifecycle);
  }

  private changeSettings(settings: PlannerSettings): PlannerSettings {
    if (this.runActive()) throw new Error('settings cannot change while a run is in progress');
    const saved = this.settings.set(settings);
    this.publish({ type: 'settings', settings: saved });
    return saved;
  }

  private importScene(name: string, text: string) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return {
        scene: this.scene,
        file: this.sceneFile,
        problems: [{ path: '', message: `not valid JSON: ${(err as Error).message}` }],
      };
    }
    const problems = validateScene(json);
    if (problems.length > 0) return { scene: this.scene, file: this.sceneFile, problems };
    return this.setScene(parseScene(json, name), null, true);
  }

  /**
   * A library scene, or, when the file is missing or invalid, its problems with the scene on
   * screen unchanged (the renderer names the file and says it was not loaded).
   */
  private loadScene(ref: SceneRef) {
    let scene: Scene;
    try {
      scene = this.library.load(ref);
    } catch (err) {
      if (!(err instanceof SceneFileError)) throw err;
      this.log('error', 'scene', `${ref.file} was not loaded: ${err.message}`);
      return { scene: this.scene, file: this.sceneFile, problems: err.problems };
    }
    return this.setScene(scene, ref.file, false, ref.source);
  }

  /**
   * Saves into the operator's folder only. Replacing a file there takes the operator's word
   * (`overwrite`), but for the file the scene was opened from or last saved to.
   */
  private saveScene(file: string, overwrite: boolean) {
    if (!this.scene) throw new Error('there is no scene to save');
    const target = this.library.pathOf({ file, source: 'user' });
    const ownFile = this.sceneSource === 'user' && this.sceneFile === file;
    if (!overwrite && !ownFile && this.library.exists(file)) return { file, path: target, saved: false };
    this.library.save(file, this.scene);
    this.sceneFile = file;
    this.sceneSource = 'user';
    this.sceneDirty = false;
    this.publish({ type: 'scene', scene: this.scene, file, source: 'user', dirty: false });
    this.log('info', 'scene', `saved ${target}`);
    return { file, path: target, saved: true };
  }

  private setScene(scene: Scene, file: string | null, dirty: boolean, source: SceneSource | null = null) {
    if (this.runActive()) throw new Error('the scene cannot change while a run is in progress');
    this.scene = scene;
    this.sceneFile = file;
    this.sceneSource = file === null ? null : source;
    this.sceneDirty = dirty;
    this.connections.useScene?.(scene);
    this.publish({ type: 'scene', scene, file, source: this.sceneSource, dirty: this.sceneDirty });
    return { scene, file, problems: [] as ValidationProblem[] };
  }

  private log(level: 'info' | 'warn' | 'error', source: string, message: string): void {
    this.publish({ type: 'log', at: this.now(), level, source, message });
  }

  /** Every event leaves the core validated: a bad event from a plug-in is a bug caught here. */
  publish(event: ConsoleEvent): void {
    if (this.held) {
      this.held.push(event);
      return;
    }
    const checked = eventSchema.parse(event);
    this.run.record(checked);
    for (const listener of this.listeners) listener(checked);
  }
}

function validateScene(candidate: unknown): ValidationProblem[] {
  const result = sceneSchema.safeParse(candidate);
  return result.success ? [] : problemsOf(result.error);
}

/** A pivot offset for the event log, mm and deg. */
function pivotWords(p: { position: readonly number[]; yaw: number; method: string } | null): string {
  if (!p) return 'not measured';
  const mm = p.position.map((v) => (v * 1000).toFixed(1)).join(', ');
  return `(${mm}) mm, ${((p.yaw * 180) / Math.PI).toFixed(1)} deg${p.method === 'motive-reset' ? ' (zero: reset in Motive)' : ''}`;
}
