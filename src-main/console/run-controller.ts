/**
 * The seam between the console and the MPC loop + safety supervisor. The console core only
 * forwards the operator's start, pause and abort; the controller owns the run and reports its
 * status and events through the sink. Abort is synchronous on purpose: it must reach the
 * supervisor at once, never behind a queue of other work.
 */
import type { ConsoleEvent } from '#contract/console-api';
import type { PlannerSettings } from '#contract/planner-settings';
import type { RunMode } from '#contract/run-lifecycle';
import type { Scene } from '#contract/scene';
import type { RunOwner } from '../run/run-owner';
import type { RunStatusChange } from '../run/run-status';

export type AbortSource = 'button' | 'escape-key' | 'space-key' | 'remote';

/**
 * Where a run reports (its status and events, run/run-report.ts) and says it is over: the console
 * core's run owner, through the core.
 */
export interface RunSink {
  /** A change of the run's status: a lifecycle event (contract/run-lifecycle.ts), readings, or both. */
  status(change: RunStatusChange): void;
  /** An event of the run (planner steps, live state, supervisor decisions, log lines, pre-flight). */
  emit(event: ConsoleEvent): void;
  /**
   * The run has reported its last event (how it ended) and let go of the lab; the run's log
   * closes now. Called once for every start() that resolved.
   */
  ended(): void;
}

export interface RunRequest {
  mode: RunMode;
  scene: Scene;
  settings: PlannerSettings;
  /** An identification run: probing pushes instead of the task (physics-probe/). */
  probe?: boolean;
}

/** Why a real run cannot start without a real lab, and how to configure one (docs/console.md). */
export const NO_REAL_LAB =
  'No real lab is configured: start the console with a lab file (parapush web --lab lab.json; on the desktop, <userData>/lab.json), as docs/console.md describes.';

export interface RunController {
  /**
   * The run owner the controller's runs belong to (run/run-owner.ts); the console core drives the
   * same one. Absent: the core keeps an owner of its own, for the status the controller reports.
   */
  readonly owner?: RunOwner;
  /**
   * Why a run of this mode cannot start at all (no lab for it), in words for the operator; null
   * when it may be tried. The console asks before it records anything of the run.
   */
  unavailable?(mode: RunMode): string | null;
  /**
   * Opens the lab a run of this mode needs before anything of the run is recorded; rejects with
   * the reason when it cannot (the start is refused: no failed session). Absent: nothing to open.
   */
  prepare?(mode: RunMode, scene: Scene, settings: PlannerSettings): Promise<void>;
  /**
   * Starts a run; resolves once it is under way (and then calls sink.ended() once it is over),
   * rejects with a reason for the operator (nothing ran; the caller ends the run's log).
   */
  start(request: RunRequest, sink: RunSink): Promise<void>;
  /**
   * The operator's explicit arm step of a real run (its pre-flight checklist green); rejects with
   * the reason when the run is not waiting for it.
   */
  arm(): Promise<void>;
  /** Holds the arm still once the current action ends, until resume(). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the run now. Must not block: the supervisor guarantees the stop within its deadline. */
  abort(source: AbortSource): void;
}

/** Why a console built without a run controller (no lab to run on) refuses every run. */
export const NO_RUN_CONTROLLER = 'Runs are not available: this console has no lab to run on.';
