/**
 * What a supervised run tells its operator, as console events: its status (phase, safety, armed,
 * reason, run time), the supervisor's decisions in words, the pre-flight checklist, every planner
 * step (and a warning when planning keeps overrunning the control), the measured state for the
 * live view, and one closing line on how it ended. A run reports
 * the same events however it was started, so the console shows and the session log records the
 * same things for a console run and for `parapush run` (which has no console to show them).
 */
import os from 'node:os';
import { type PlannerStep } from '#contract/planner-events';
import type { ConsoleEvent } from '#contract/console-api';
import { describeOverrun, OVERRUN_ADVICE, OVERRUN_STREAK, OverrunStreak } from '#contract/planning-overrun';
import { runOutcomeOf, type RunEnd, type RunOutcome } from '#contract/run-end';
import { endsRun, type RunEvent } from '#contract/run-lifecycle';
import type { StateLayout } from '#contract/state';
import { wallSeconds } from '#contract/time';
import type { TableEstimate } from '../mocap/state-estimator';
import type { PreflightReport } from '../safety/preflight';
import { judgedAfterArm } from '#contract/arm-readiness';

/** Which of a run's two checklists: before the gripper moves (after Arm), or after it has. */
export type PreflightStage = 'before-gripping' | 'after-gripping';
import { describeStop } from '../safety/stop-reasons';
import type { Decision } from '../safety/supervisor';
import type { RunOwner } from './run-owner';
import type { RunStatusChange } from './run-status';

/** The reason of a run the operator aborted. */
export const ABORTED = describeStop({ code: 'operator-abort' });

/** How a run ended, as much as the report needs of it. */
export interface RunEndReport {
  end: RunEnd;
  /** Why, in the operator's words. */
  reason: string;
  actions: number;
}

/**
 * What the reporter needs of the run's owner (run-owner.ts): the one status writer, the run's
 * clock, the event output, and whether the run's end is decided.
 */
export type RunReportTarget = Pick<
  RunOwner,
  'report' | 'emit' | 'runTime' | 'stopClock' | 'aborted' | 'ending'
>;

export class RunReporter {
  /**
   * The run's planner steps against their control (contract/planning-overrun.ts), for a run on a
   * lab, whose arm waits for each plan; a simulated run's world waits for its planner instead.
   */
  private readonly overruns: OverrunStreak | null;

  constructor(
    private readonly owner: RunReportTarget,
    o: { realTime: boolean },
  ) {
    this.overruns = o.realTime ? new OverrunStreak() : null;
  }

  /**
   * A status change. Once the run's end is decided (the operator's abort, a safety stop, its end),
   * a later ending is not reported again: the first holds, and its readings still count.
   */
  status(change: RunStatusChange): void {
    const { event, ...readings } = change;
    if (event && endsRun(event) && this.owner.ending) this.owner.report(readings);
    else this.owner.report(change);
  }

  emit(event: ConsoleEvent): void {
    this.owner.emit(event);
  }

  log(level: 'info' | 'warn' | 'error', source: string, message: string): void {
    this.owner.emit({ type: 'log', at: wallSeconds(), level, source, message });
  }

  /** A checklist the run judged; before gripping, the gripper's own check is not a warning (it is judged after Arm). */
  preflight(report: PreflightReport, stage: PreflightStage): void {
    this.owner.emit({ type: 'preflight', report });
    const judged = (c: PreflightReport['checks'][number]) =>
      stage === 'after-gripping' || !judgedAfterArm(c.id);
    for (const c of report.checks.filter((c) => !c.ok && judged(c)))
      this.log('warn', 'preflight', `${c.label}: ${c.reason}`);
  }

  step(step: PlannerStep): void {
    this.owner.emit({ type: 'planner-step', step });
    const overrun = this.overruns?.observe(step);
    // Once per streak, as it reaches its length: with the machine's load beside the figures.
    if (overrun?.planning.length === OVERRUN_STREAK) {
      const [load] = os.loadavg();
      this.log(
        'warn',
        'planner',
        `${describeOverrun(overrun)}. Load average ${load!.toFixed(1)} on ${os.availableParallelism()} cores: ${OVERRUN_ADVICE}.`,
      );
    }
  }

  /**
   * The measured state for the live view: the estimate the planner observes too
   * (mocap/state-estimator.ts), once every body's position is known (never a guess).
   */
  state(layout: StateLayout, estimate: TableEstimate): void {
    if (estimate.state)
      this.owner.emit({
        type: 'state',
        time: this.owner.runTime(),
        sliderIds: [...layout.sliderIds],
        state: Array.from(estimate.state),
      });
  }

  /** A supervisor decision as the status bar and the event log show it. */
  decision(d: Decision): void {
    const time = this.owner.runTime(d.at);
    const tell = (decision: 'allow' | 'stop', reason: string): void =>
      this.owner.emit({ type: 'supervisor', time, decision, reason });
    switch (d.kind) {
      case 'armed':
        this.status({ armed: true, safety: 'safe' });
        return tell('allow', 'Armed: every pre-flight check is green');
      case 'arm-refused':
        return tell('stop', `Arming refused: ${d.failed.join('; ')}`);
      case 'run-started':
        // After an abort the lifecycle keeps the abort (contract/run-lifecycle.ts).
        this.status({ event: { type: 'run-started' }, safety: 'safe', reason: null });
        return tell('allow', 'Run started');
      case 'command-refused':
      case 'stop': {
        // The arm has stopped: the run ends here, whatever winding down takes. A refused command
        // is the stop that follows it, so only the stop moves the lifecycle.
        this.owner.stopClock(d.at);
        if (d.kind === 'stop' && d.reason.code === 'task-ended') {
          // The task's own end: the arm stops as planned, not for safety. The run's report of how
          // it ended follows (ended()); until then nothing here reads like an alarm.
          this.status({ safety: 'safe', armed: false });
          const success = d.reason.outcome.startsWith('success');
          return this.log(success ? 'info' : 'warn', 'supervisor', `Arm stopped: ${d.message}`);
        }
        const event = d.kind === 'stop' ? stopEvent(d) : undefined;
        this.status({ safety: 'stopped', armed: false, reason: d.message, ...(event ? { event } : {}) });
        return tell('stop', d.message);
      }
      case 'fingers':
        return tell(
          'allow',
          `Fingers to ${(d.opening * 1000).toFixed(0)} mm at ${(d.speed * 1000).toFixed(0)} mm/s`,
        );
      case 'disarmed':
        return this.status({ armed: false });
    }
  }

  /**
   * The run's last words: how it ended, after how many actions, and its final status (after an
   * abort or a safety stop, the lifecycle keeps that ending whatever the run says here).
   */
  ended(r: RunEndReport): void {
    const outcome = this.owner.aborted ? 'aborted' : runOutcomeOf(r.end);
    if (outcome === 'aborted') {
      this.log('warn', 'run', `run aborted after ${r.actions} action(s): ${ABORTED}`);
      return this.end('aborted', ABORTED);
    }
    const finished = outcome === 'finished';
    this.log(finished ? 'info' : 'warn', 'run', `run ${outcome} after ${r.actions} action(s): ${r.reason}`);
    this.end(outcome, finished ? 'Goal reached' : r.reason);
  }

  /** A run that broke off with an error (not a supervisor stop). */
  failed(err: Error): void {
    this.log('error', 'run', `run failed: ${err.message}`);
    this.end(runOutcomeOf({ cause: 'error' }), err.message);
  }

  private end(outcome: RunOutcome, reason: string): void {
    this.status({ event: { type: 'end', outcome, reason }, armed: false });
  }
}

/**
 * What a supervisor stop is to the run's lifecycle: the operator's abort; none when the task ended
 * by itself (the run's report of its end follows and says how); else a safety stop, which fails
 * the run at once with the stop's words, so the run's later report of its end changes nothing.
 */
export function stopEvent(d: Extract<Decision, { kind: 'stop' }>): RunEvent | undefined {
  switch (d.reason.code) {
    case 'operator-abort':
      return { type: 'abort', reason: d.message };
    case 'task-ended':
      return undefined;
    default:
      return { type: 'safety-stop', reason: d.message };
  }
}
