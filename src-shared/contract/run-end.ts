/**
 * How a run came out, at its two levels, and the one mapping between them. The task's result
 * (`TaskResult`, contract/planner-events.ts: success, failure, action-limit, time-limit, aborted) is
 * the MPC loop's verdict on the task; the run's outcome (`RunOutcome`, defined here:
 * finished, aborted, failed) is how the run ended, what the operator sees and the session log's
 * `/run/outcome`. A run ends either with its task's result, or before the task could end by itself:
 * it was never armed, the operator aborted it, the supervisor stopped it for safety, or it broke off
 * with an error. `runOutcomeOf` is the one place that says which outcome each of those is.
 */
import { z } from 'zod';
import type { TaskResult } from './planner-events';

/**
 * How a run ended, what the operator sees: the goal reached, the operator's abort, or anything else
 * that ended it (which is which: runOutcomeOf).
 */
export const runOutcomeSchema = z.enum(['finished', 'aborted', 'failed']);
export type RunOutcome = z.infer<typeof runOutcomeSchema>;

/** Why a run ended. */
export type RunEnd =
  /** The MPC loop ended the task by itself, with this result. */
  | { cause: 'task'; result: TaskResult }
  /** Pre-flight checks failed or the safety thread refused to arm: nothing moved. */
  | { cause: 'not-armed' }
  /** The operator aborted the run before the task ended. */
  | { cause: 'operator-abort' }
  /** The supervisor stopped the arm for safety (stale motion capture, a protective stop, ...). */
  | { cause: 'safety-stop' }
  /** The run broke off with an error. */
  | { cause: 'error' };
export type RunEndCause = RunEnd['cause'];

/** The run's outcome for how it ended: only the goal reached finishes a run, only an abort aborts it. */
export function runOutcomeOf(end: RunEnd): RunOutcome {
  switch (end.cause) {
    case 'task':
      return end.result === 'success' ? 'finished' : end.result === 'aborted' ? 'aborted' : 'failed';
    case 'operator-abort':
      return 'aborted';
    case 'not-armed':
    case 'safety-stop':
    case 'error':
      return 'failed';
  }
}
