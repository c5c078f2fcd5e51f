import type { PlannerStep } from './planner-events';
/**
 * Planning that overruns the control on this machine: the MPC loop plans each step while the last
 * control executes, so a plan that takes longer than a control leaves the arm holding still
 * between controls and the run slower than planned. One overrun is noise (a busy moment); a streak
 * of them says the machine cannot keep up with this model and these workers. The run's event log
 * (run/run-report.ts) and the planner readout both judge steps by this one rule.
 */

/** Consecutive overrunning steps after which the operator is told. */
export const OVERRUN_STREAK = 3;

/** The steps of a streak: their planning times (s) against the control duration (s). */
export interface Overrun {
  planning: number[];
  control: number;
  workers: number;
}

/**
 * Follows a run's planner steps. A step planned before arming (its time includes the workers'
 * warm-up and the pre-flight) neither counts nor breaks a streak; a step within its control ends
 * one, and so does a step numbered below the last (a new run, a seek in a playback).
 */
export class OverrunStreak {
  private planning: number[] = [];
  private last = -1;

  /** Takes the next step; returns the streak so far when it has reached OVERRUN_STREAK, else null. */
  observe(step: PlannerStep): Overrun | null {
    // The same step again (a view drawn twice) changes nothing.
    if (step.step === this.last) return this.current(step);
    if (step.step < this.last) this.planning = [];
    this.last = step.step;
    if (step.beforeArming === true) return this.current(step);
    if (step.timings.planning > step.controlDuration) this.planning.push(step.timings.planning);
    else this.planning = [];
    return this.current(step);
  }

  private current(step: PlannerStep): Overrun | null {
    if (this.planning.length < OVERRUN_STREAK) return null;
    return { planning: [...this.planning], control: step.controlDuration, workers: step.timings.workers };
  }
}

/** What the operator can do, in words: the same advice in the log and in the readout. */
export const OVERRUN_ADVICE =
  'close other CPU-heavy programs (or give the planner fewer workers elsewhere), or plan with a smaller model: coarse, or Parareal';

/** The streak in words, with its measured figures (the last OVERRUN_STREAK steps). */
export function describeOverrun(o: Overrun): string {
  const last = o.planning.slice(-OVERRUN_STREAK);
  const times = last.map((s) => `${s.toFixed(2)} s`).join(', ');
  return (
    `Planning overruns the control on this machine: ${times} for the last ${last.length} steps against a ` +
    `${o.control.toFixed(2)} s control (${o.workers} worker${o.workers === 1 ? '' : 's'}); the arm waits between controls`
  );
}
