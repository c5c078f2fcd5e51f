/**
 * What the console knows, fed only by the core's events and command results. Views read it;
 * nothing here invents data.
 *
 * Playback of a recorded session feeds the same fields as a live run (live view, plots, event
 * log), so it reads exactly like the run did. What was on screen from the live console is put
 * aside when playback opens and comes back when it closes; replayed log lines are marked as
 * playback and leave the log again on a seek (the core replays them) or when playback closes.
 */
import type { RunPredictionError } from '#contract/prediction-error';
import {
  idleRunStatus,
  type Connection,
  type PlannerKindEntry,
  type ConsoleEvent,
  type ConsoleSnapshot,
  type FoxgloveStatus,
  type PlaybackStatusInfo,
  type PreflightReportPayload,
  type RunStatus,
  type SceneSource,
  type SessionSummary,
  type ValidationProblem,
} from '#contract/console-api';
import { type PlannerStep } from '#contract/planner-events';
import type { PlannerSettings } from '#contract/planner-settings';
import { isRunActive } from '#contract/run-lifecycle';
import type { Scene } from '#contract/scene';
import { wallSeconds } from '#contract/time';
import type { LinkState } from '../api/client';
import type { RunClock } from '../lib/run-clock';

export interface LogEntry {
  id: number;
  /** Wall clock, s since the epoch. */
  at: number;
  level: 'info' | 'warn' | 'error';
  source: string;
  message: string;
  /** Replayed from a recorded session, not something happening now. */
  playback?: boolean;
}

/** The session open for playback, as sessions.open described it. */
export interface OpenSession {
  file: string;
  summary: SessionSummary;
  /** Planner steps in the log (what-if picks one by its index). */
  steps: number;
  /** The scene the run was recorded on: drawn during playback, never the live scene. */
  scene: Scene | null;
  /** The planner's prediction error per executed control, as logged; null in a log without it. */
  predictionError?: RunPredictionError | null;
}

/**
 * Scene edits the core refused (their problems listed): kept, shown in the editor's fields and
 * blocking a run, until the operator fixes them or discards them.
 */
export interface SceneDraft {
  /** Values as the operator typed them, by field path (scene-fields.ts), in display units. */
  values: Record<string, string>;
  problems: ValidationProblem[];
}

/** A what-if re-plan of a logged step beside the step as it was planned in the run. */
export interface WhatIfComparison {
  /** Index of the step in the session log. */
  index: number;
  original: PlannerStep;
  replanned: PlannerStep;
  /** The settings in words (model, iterations), for the legend. */
  label: string;
}

/** What a run puts on screen; set aside while a session plays back. */
interface RunData {
  plannerStep: PlannerStep | null;
  stepTimings: StepTiming[];
  live: LiveState | null;
  executedPath: [number, number][];
}

/**
 * The measured table the view draws: a run's state at its run time, or, between runs, the lab's
 * (time null: no run's clock, and no point of a run's path).
 */
export interface LiveState {
  time: number | null;
  sliderIds: string[];
  state: number[];
}

/** One point per planner step for the timing plots. */
export interface StepTiming {
  step: number;
  planning: number;
  controlDuration: number;
  theoreticalSpeedup: number | null;
}

const LOG_LIMIT = 500;
const EXECUTED_PATH_LIMIT = 20_000;

/** The run before the core's snapshot arrives. */
export const idleRun: RunStatus = idleRunStatus;

export class ConsoleState {
  scene = $state<Scene | null>(null);
  sceneFile = $state<string | null>(null);
  /** Where sceneFile is: shipped (read only) or the operator's folder; null: no library file. */
  sceneSource = $state<SceneSource | null>(null);
  sceneDirty = $state(false);
  /** Edits not yet taken by the core; null when every edit is in the live scene. */
  sceneDraft = $state.raw<SceneDraft | null>(null);
  settings = $state<PlannerSettings | null>(null);
  presets = $state<{ name: string; label: string }[]>([]);
  /** The planners the settings may choose (the planner registry's entries). */
  planners = $state<PlannerKindEntry[]>([]);
  run = $state<RunStatus>(idleRun);
  /** Why a real run cannot start (no real lab configured); null when it can. */
  realRun = $state<string | null>(null);
  /** The live Foxglove view: where viewers connect, or off. */
  foxglove = $state<FoxgloveStatus>({ url: null });
  connections = $state<Connection[]>([]);
  /** The lab's pre-flight checklist now; null while no lab is connected. */
  preflight = $state.raw<PreflightReportPayload | null>(null);
  link = $state<LinkState>({ up: false, detail: 'connecting' });
  log = $state<LogEntry[]>([]);
  /** Latest planner step: plan, per-iteration predictions, costs, timings. */
  plannerStep = $state.raw<PlannerStep | null>(null);
  stepTimings = $state.raw<StepTiming[]>([]);
  /** Latest measured state, and the pusher path executed so far in this run. */
  live = $state.raw<LiveState | null>(null);
  executedPath = $state.raw<[number, number][]>([]);
  /** Where the playback timeline is; null while the console is live. */
  playback = $state.raw<PlaybackStatusInfo | null>(null);
  /** The session being played back (set by the Sessions view when it opens one). */
  session = $state.raw<OpenSession | null>(null);
  whatIf = $state.raw<WhatIfComparison | null>(null);
  /**
   * Wall clock (s since the epoch) since which the live run has waited for its next planner step: when it began
   * running, then each step's arrival. Null when no live run is waiting for one.
   */
  stepWaitSince = $state<number | null>(null);
  /** Run time frozen when the live run left its active phases, s; null: the core's elapsed. */
  private stoppedRunTime = $state<number | null>(null);
  private nextLogId = 1;
  private liveData: RunData | null = null;
  /** Wall clock when playback opened, s since the epoch: log lines stamped before it are replayed ones. */
  private playbackOpenedAt = 0;

  /** Wall clock, s since the epoch (injectable for tests). */
  private readonly now: () => number;

  constructor(now: () => number = wallSeconds) {
    this.now = now;
  }

  /**
   * The scene the table view draws: the recording's during playback, else the live one. Playback
   * never writes the live scene (scene, sceneFile, sceneDirty change only by the core's scene
   * events and snapshots), so closing it brings back exactly the live setup.
   */
  get shownScene(): Scene | null {
    return this.playback && this.session?.scene ? this.session.scene : this.scene;
  }

  /** Why no run may start because of the scene draft, in words; null when nothing blocks. */
  get draftBlocksRun(): string | null {
    const d = this.sceneDraft;
    if (!d || d.problems.length === 0) return null;
    const first = d.problems[0]!;
    const more = d.problems.length > 1 ? ` (and ${d.problems.length - 1} more)` : '';
    return `The scene draft is invalid: ${first.path || '(scene)'}: ${first.message}${more}. Fix it or discard it in the Scene view.`;
  }

  /** A live run is in progress (starting, running or paused): what every view asks. */
  get runActive(): boolean {
    return isRunActive(this.run);
  }

  /** What the run timer shows: ticking while a run is active, frozen where it stopped after. */
  get runClock(): RunClock {
    return {
      active: this.runActive,
      startedAt: this.run.startedAt,
      stopped: this.stoppedRunTime ?? this.run.elapsed,
    };
  }

  applySnapshot(s: ConsoleSnapshot): void {
    this.scene = s.scene;
    this.sceneFile = s.sceneFile;
    this.sceneSource = s.sceneSource;
    this.settings = s.settings;
    this.presets = s.presets;
    this.planners = s.planners;
    this.run = s.run;
    this.realRun = s.realRun;
    this.foxglove = s.foxglove;
    this.stoppedRunTime = null;
    this.stepWaitSince = this.runActive ? this.now() : null;
    this.connections = s.connections;
    this.preflight = s.preflight;
  }

  apply(event: ConsoleEvent): void {
    switch (event.type) {
      case 'connections':
        this.connections = event.connections;
        break;
      case 'preflight':
        this.preflight = event.report;
        break;
      case 'scene':
        this.scene = event.scene;
        this.sceneFile = event.file;
        this.sceneSource = event.source ?? null;
        this.sceneDirty = event.dirty;
        break;
      case 'settings':
        this.settings = event.settings;
        break;
      case 'run':
        this.applyRunStatus(event.status);
        break;
      case 'state':
        this.live = { time: event.time, sliderIds: event.sliderIds, state: event.state };
        this.executedPath = appendCapped(
          this.executedPath,
          [event.state[0]!, event.state[1]!],
          EXECUTED_PATH_LIMIT,
        );
        break;
      case 'lab-state':
        // Between runs the view follows the lab; a run's own states and a playback's come first.
        if (!this.playback && !this.runActive)
          this.live = { time: null, sliderIds: event.sliderIds, state: event.state };
        break;
      case 'planner-step':
        // Playback replays steps while no live run waits for one.
        if (!this.playback && this.runActive) this.stepWaitSince = this.now();
        this.plannerStep = event.step;
        this.stepTimings = [
          ...this.stepTimings,
          {
            step: event.step.step,
            planning: event.step.timings.planning,
            controlDuration: event.step.controlDuration,
            theoreticalSpeedup: event.step.timings.theoreticalSpeedup,
          },
        ];
        break;
      case 'supervisor':
        this.addLog({
          at: this.supervisorWallTime(event.time),
          level: event.decision === 'allow' ? 'info' : 'warn',
          source: 'supervisor',
          message: `${event.decision.toUpperCase()}: ${event.reason}`,
          // Supervisor decisions come only from runs, and no run goes on while a session plays back.
          ...(this.playback ? { playback: true } : {}),
        });
        break;
      case 'log':
        this.addLog({
          at: event.at,
          level: event.level,
          source: event.source,
          message: event.message,
          ...(this.playback && event.at < this.playbackOpenedAt ? { playback: true } : {}),
        });
        break;
      case 'playback':
        this.applyPlayback(event.status);
        break;
    }
  }

  /**
   * A new run clears the last one's data; a run that stops keeps its run time: the core's elapsed
   * when it says, else the time from the start to the moment the run was seen to stop (an abort
   * is reported before the run has wound down and its elapsed is known).
   */
  private applyRunStatus(status: RunStatus): void {
    const wasActive = this.runActive;
    if (status.phase === 'starting' && !(wasActive && this.run.startedAt === status.startedAt)) {
      this.resetRunData();
      this.stoppedRunTime = null;
      this.stepWaitSince = null;
    }
    const before = this.run;
    this.run = status;
    // The first step is planned during pre-flight (the run arms with it made), so the wait for it
    // starts with the run; a real run's loop begins once it is armed, so its clock starts there.
    if (isRunActive(status) && this.stepWaitSince === null) this.stepWaitSince = this.now();
    if (status.mode === 'real' && status.phase === 'running' && before.phase === 'starting')
      this.stepWaitSince = this.now();
    if (wasActive && !isRunActive(status)) {
      this.stepWaitSince = null;
      this.stoppedRunTime =
        status.elapsed > 0 || status.startedAt === null
          ? status.elapsed
          : Math.max(0, this.now() - status.startedAt);
    }
  }

  /** Playback opened, moved or closed: set live data aside, clear for the replay, or bring it back. */
  private applyPlayback(status: PlaybackStatusInfo | null): void {
    const before = this.playback;
    this.playback = status;
    if (status === null) {
      if (before === null) return;
      this.dropPlaybackLog();
      this.restoreRunData(this.liveData);
      this.liveData = null;
      this.session = null;
      this.whatIf = null;
      return;
    }
    if (before === null) {
      this.liveData = {
        plannerStep: this.plannerStep,
        stepTimings: this.stepTimings,
        live: this.live,
        executedPath: this.executedPath,
      };
      this.playbackOpenedAt = wallSeconds();
      this.resetRunData();
      return;
    }
    if (before.file !== status.file) {
      this.whatIf = null;
      this.session = this.session?.file === status.file ? this.session : null;
    }
    // After a seek the core replays everything up to the new position: start from a clean view.
    if (before.file !== status.file || before.seeks !== status.seeks) {
      this.dropPlaybackLog();
      this.resetRunData();
    }
  }

  /** Wall time of a supervisor decision: now when live, the recorded time in a played-back session. */
  private supervisorWallTime(runTime: number): number {
    const startedAt = this.playback ? this.session?.summary.startedAt : null;
    return startedAt != null ? startedAt + runTime : wallSeconds();
  }

  private dropPlaybackLog(): void {
    if (this.log.some((e) => e.playback)) this.log = this.log.filter((e) => !e.playback);
  }

  /** Index in the session log of the planner step on screen during playback (steps arrive in order). */
  get playbackStepIndex(): number | null {
    return this.playback && this.stepTimings.length > 0 ? this.stepTimings.length - 1 : null;
  }

  addLog(entry: Omit<LogEntry, 'id'>): void {
    const next = [...this.log, { ...entry, id: this.nextLogId++ }];
    this.log = next.length > LOG_LIMIT ? next.slice(next.length - LOG_LIMIT) : next;
  }

  private resetRunData(): void {
    this.restoreRunData(null);
  }

  private restoreRunData(data: RunData | null): void {
    this.plannerStep = data?.plannerStep ?? null;
    this.stepTimings = data?.stepTimings ?? [];
    this.live = data?.live ?? null;
    this.executedPath = data?.executedPath ?? [];
  }
}

function appendCapped<T>(list: T[], item: T, limit: number): T[] {
  const next = list.length >= limit ? list.slice(list.length - limit + 1) : list.slice();
  next.push(item);
  return next;
}
