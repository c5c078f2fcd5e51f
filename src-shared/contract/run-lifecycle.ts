/**
 * The lifecycle of one run, decided in one place: a pure reducer over the events that move a run
 * (the operator's commands, the supervisor's start and its safety stops, the run's own report of its
 * end) from idle to its end. Every event in every state gives either the next state or a typed
 * rejection; nothing throws and nothing is ignored. The console core, the run's reporter and
 * recorder, and the renderer all read a run through this module (docs/architecture.md, "The run").
 *
 * The console API and the session log carry a run's `phase` (runPhaseSchema), the lifecycle as
 * the operator sees it: `stopping` (the end is decided, the run still winds down) shows as the
 * outcome it will end with, so an abort reads ABORTED, and a safety stop FAILED, at once.
 */
import { z } from 'zod';
import { runOutcomeOf, runOutcomeSchema, type RunOutcome } from './run-end';

export const runModeSchema = z.enum(['dry', 'real']);
export type RunMode = z.infer<typeof runModeSchema>;

/** A run's phase as the console API and the session log carry it (see phaseOf). */
export const runPhaseSchema = z.enum([
  'idle',
  'starting',
  'running',
  'paused',
  'aborted',
  'finished',
  'failed',
]);
export type RunPhase = z.infer<typeof runPhaseSchema>;

/**
 * - idle: no run since the console started.
 * - starting: connecting, gripping the pusher, pre-flight checks, and (a real run) the operator's arm.
 * - running: armed; the MPC loop plans and executes (asynchronous MPC overlaps the two, so they are
 *   one state).
 * - paused: the arm holds still after its current action until the operator resumes.
 * - stopping: the outcome is decided (an abort, a safety stop, or the run's report of its end); the
 *   run still lets go of the lab (planning finishing, workers closing).
 * - ended: the run has let go of the lab; the next run may start.
 */
export type RunLifecycle =
  | { state: 'idle' }
  | { state: 'starting'; mode: RunMode }
  | { state: 'running' }
  | { state: 'paused' }
  | { state: 'stopping'; outcome: RunOutcome; reason: string }
  | { state: 'ended'; outcome: RunOutcome; reason: string };
export type RunState = RunLifecycle['state'];

export type RunEvent =
  /** The operator starts a run. */
  | { type: 'start'; mode: RunMode }
  /** The operator arms a real run whose pre-flight checks are green; the supervisor's start follows. */
  | { type: 'arm' }
  /** The supervisor armed and the MPC loop starts. */
  | { type: 'run-started' }
  /** The operator pauses, or resumes, the run. */
  | { type: 'pause' }
  | { type: 'resume' }
  /** The operator aborts the run: the arm is stopped at once. */
  | { type: 'abort'; reason: string }
  /**
   * The supervisor has stopped the arm for safety (stale motion capture, a protective stop, a lost
   * link, a refused command, ...): the run fails here, with the stop's reason in the operator's
   * words, not later when it reports its end. Its own end (the task's) is `end`, the operator's
   * stop `abort`.
   */
  | { type: 'safety-stop'; reason: string }
  /** The run reports how it ended. */
  | { type: 'end'; outcome: RunOutcome; reason: string }
  /** The run has let go of the lab (its log closes now). */
  | { type: 'released' };
export type RunEventType = RunEvent['type'];

/**
 * Why an event cannot happen in a state:
 * - no-run: no run is in progress (idle, or the last run has ended);
 * - run-in-progress: a run is starting, running or paused;
 * - ending: the run's end is decided; the first ending holds (a late report of a run that was
 *   aborted or stopped for safety);
 * - not-awaiting-arm: no real run is starting, waiting for the operator's arm;
 * - already-started: the supervisor has already started the run;
 * - not-running, not-paused: pause needs a running run, resume a paused one;
 * - not-ended: the run cannot let go of the lab before it has reported its end.
 */
export type RunRejectionCode =
  | 'no-run'
  | 'run-in-progress'
  | 'ending'
  | 'not-awaiting-arm'
  | 'already-started'
  | 'not-running'
  | 'not-paused'
  | 'not-ended';

export interface RunRejection {
  code: RunRejectionCode;
  event: RunEventType;
  /** The phase the run was in, for the operator's words. */
  phase: RunPhase;
}

export type RunTransition = { ok: true; next: RunLifecycle } | { ok: false; rejection: RunRejection };

/** The next state of `run` after `event`, or why the event cannot happen now. */
export function advanceRun(run: RunLifecycle, event: RunEvent): RunTransition {
  switch (run.state) {
    case 'idle':
    case 'ended':
      return event.type === 'start'
        ? { ok: true, next: { state: 'starting', mode: event.mode } }
        : reject(run, event, 'no-run');
    case 'starting':
    case 'running':
    case 'paused':
      return advanceInProgress(run, event);
    case 'stopping':
      return event.type === 'released'
        ? { ok: true, next: { state: 'ended', outcome: run.outcome, reason: run.reason } }
        : reject(run, event, 'ending');
  }
}

type InProgress = Extract<RunLifecycle, { state: 'starting' | 'running' | 'paused' }>;

function advanceInProgress(run: InProgress, event: RunEvent): RunTransition {
  const to = (next: RunLifecycle): RunTransition => ({ ok: true, next });
  const no = (code: RunRejectionCode): RunTransition => reject(run, event, code);
  switch (event.type) {
    case 'start':
      return no('run-in-progress');
    case 'arm':
      // Arming changes no state: the supervisor's start, which follows it, does.
      return run.state === 'starting' && run.mode === 'real' ? to(run) : no('not-awaiting-arm');
    case 'run-started':
      return run.state === 'starting' ? to({ state: 'running' }) : no('already-started');
    case 'pause':
      return run.state === 'running' ? to({ state: 'paused' }) : no('not-running');
    case 'resume':
      return run.state === 'paused' ? to({ state: 'running' }) : no('not-paused');
    case 'abort':
      return to({
        state: 'stopping',
        outcome: runOutcomeOf({ cause: 'operator-abort' }),
        reason: event.reason,
      });
    case 'safety-stop':
      return to({ state: 'stopping', outcome: runOutcomeOf({ cause: 'safety-stop' }), reason: event.reason });
    case 'end':
      return to({ state: 'stopping', outcome: event.outcome, reason: event.reason });
    case 'released':
      return no('not-ended');
  }
}

function reject(run: RunLifecycle, event: RunEvent, code: RunRejectionCode): RunTransition {
  return { ok: false, rejection: { code, event: event.type, phase: phaseOf(run) } };
}

/** The phase the console API and the session log carry for a lifecycle state. */
export function phaseOf(run: RunLifecycle): RunPhase {
  return run.state === 'stopping' || run.state === 'ended' ? run.outcome : run.state;
}

const activePhases: ReadonlySet<RunPhase> = new Set(['starting', 'running', 'paused']);

/**
 * A run is in progress (starting, running or paused): the scene, the settings, the calibration and
 * the robot are the run's, and no other run may start. The one place that says so, for a lifecycle
 * state and for a run status as the console API carries it.
 */
export function isRunActive(run: RunLifecycle | { phase: RunPhase }): boolean {
  return activePhases.has('state' in run ? phaseOf(run) : run.phase);
}

/** How the run ended, when its phase says it has (or is ending); null while it is not. */
export function outcomeOf(phase: RunPhase): RunOutcome | null {
  const outcome = runOutcomeSchema.safeParse(phase);
  return outcome.success ? outcome.data : null;
}

/** The events that decide a run's end (its run time stops there). */
export function endsRun(event: RunEvent): boolean {
  return event.type === 'abort' || event.type === 'safety-stop' || event.type === 'end';
}

/** A rejection in the operator's words. */
export function describeRejection(r: RunRejection): string {
  switch (r.event) {
    case 'start':
      return r.code === 'ending'
        ? 'the last run is still winding down: start again once it has ended'
        : `a run is already ${r.phase}`;
    case 'arm':
      return 'there is no real run waiting to be armed';
    case 'pause':
      return `cannot pause: the run is ${r.phase}`;
    case 'resume':
      return `cannot resume: the run is ${r.phase}`;
    default:
      return `the run cannot take "${r.event}" now: ${r.code} (the run is ${r.phase})`;
  }
}
