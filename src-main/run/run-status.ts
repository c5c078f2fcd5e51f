/**
 * The status of one run as its reports change it. The lifecycle (contract/run-lifecycle.ts)
 * decides the phase; what the run reads now (safety, armed, the reason in words, run time) rides
 * along. The run owner (run-owner.ts) keeps the one of its runs, whoever started them, and is its
 * only writer; it also gives every change its run time (the run's clock is the owner's).
 */
import { idleRunStatus, type RunStatus } from '#contract/console-api';
import {
  advanceRun,
  describeRejection,
  phaseOf,
  type RunEvent,
  type RunLifecycle,
} from '#contract/run-lifecycle';

/** What a run reports about its status: a lifecycle event, new readings, or both. */
export interface RunStatusChange extends Partial<
  Pick<RunStatus, 'reason' | 'elapsed' | 'safety' | 'armed' | 'awaitingArm'>
> {
  event?: RunEvent;
}

export class RunStatusTracker {
  private current: { lifecycle: RunLifecycle; status: RunStatus } = {
    lifecycle: { state: 'idle' },
    status: idleRunStatus,
  };

  /**
   * @param now wall clock, s since the epoch (contract/time.ts wallSeconds).
   * @param refused hears, in words, of a reported event the lifecycle rejects. A late report of a
   *   run whose end is already decided is not one: the first ending holds, as it should.
   */
  constructor(
    private readonly now: () => number,
    private readonly refused: (words: string) => void,
  ) {}

  get lifecycle(): RunLifecycle {
    return this.current.lifecycle;
  }

  get status(): RunStatus {
    return this.current.status;
  }

  /**
   * Applies one report and returns the status after it. Its readings apply even when its event is
   * rejected: the last words of an aborted run still bring its final run time and armed state.
   */
  apply(change: RunStatusChange): RunStatus {
    const { event, ...readings } = change;
    const before = this.current.lifecycle;
    let lifecycle = before;
    if (event) {
      const t = advanceRun(before, event);
      if (t.ok) lifecycle = t.next;
      else if (t.rejection.code !== 'ending')
        this.refused(`run status report refused: ${describeRejection(t.rejection)}`);
    }
    this.current = { lifecycle, status: this.next(before, lifecycle, readings) };
    return this.current.status;
  }

  private next(
    before: RunLifecycle,
    after: RunLifecycle,
    readings: Omit<RunStatusChange, 'event'>,
  ): RunStatus {
    if (after.state === 'starting' && before.state !== 'starting')
      return { ...idleRunStatus, phase: 'starting', mode: after.mode, startedAt: this.now(), ...readings };
    const status: RunStatus = { ...this.current.status, ...readings, phase: phaseOf(after) };
    // The run's end is decided now: its reason is the ending's.
    if (after.state === 'stopping' && before.state !== 'stopping') status.reason = after.reason;
    return status;
  }
}
