import { type PlannerStep } from '#contract/planner-events';
/**
 * The planner readout in words, like MuJoCo MPC's planner panel: steps planned of the most, what
 * the loop is doing now (executing a step, planning the next) and for how long against the control
 * duration, the last step's best cost, optimizer and Parareal iterations, and whether it had to
 * re-plan. Only what the planner-step events carry; the live clocks run from the moment the run
 * began or the last step arrived.
 */

export interface ProgressInput {
  /** The latest planner step (live or played back); null before the first. */
  step: PlannerStep | null;
  /** A live run is in progress. */
  active: boolean;
  /** Wall clock (s since the epoch) since which the live run has waited for its next step; null when it does not. */
  waitingSince: number | null;
  /** Wall clock, s since the epoch. */
  now: number;
  /** The most actions the run may execute; null when unknown (playback). */
  maxExecutedActions: number | null;
  /** Control duration, s (the last step's, else the settings'). */
  controlDuration: number | null;
  /** The next step is planned while this one executes (asynchronous loop). */
  asynchronous: boolean;
  /**
   * A real run before its loop begins: getting ready (workers, checks, the gripper after Arm), or
   * waiting for the operator's Arm. Nothing is planned against the control duration then.
   */
  realStart?: 'preparing' | 'awaiting-arm' | null;
}

/** What the loop is doing now, for a live run (a real run before its loop: getting ready, or waiting for Arm). */
export interface Activity {
  kind: 'planning' | 'executing' | 'preparing' | 'awaiting-arm';
  /** The step being planned or executed (index from 0, as the plots and the log number them). */
  step: number;
  /** How long it has been doing so, s. */
  seconds: number;
  /** The control duration it is measured against, s. */
  of: number | null;
}

export interface PlannerProgress {
  /** "3 of 20": steps planned so far (each sends one action) of the most actions the run may execute. */
  actions: string;
  /** Live: planning or executing, ticking; null when no live run waits for a step. */
  activity: Activity | null;
  /** The last step's planning time, s; null before the first step. */
  lastPlanning: number | null;
  bestCost: number | null;
  optimizerIterations: number | null;
  /** Parareal iterations of the last step; null when it predicted without Parareal. */
  pararealIterations: number | null;
  /** How far the observation was from the prediction the last step was planned from, mm. */
  replan: { replanned: boolean; offMm: number } | null;
}

export function plannerProgress(o: ProgressInput): PlannerProgress {
  const { step } = o;
  const sent = step ? step.step + 1 : 0;
  const controlDuration = step?.controlDuration ?? o.controlDuration;
  return {
    actions: o.maxExecutedActions !== null ? `${sent} of ${o.maxExecutedActions}` : String(sent),
    activity: activity(o, controlDuration),
    lastPlanning: step?.timings.planning ?? null,
    bestCost: step && step.costs.length > 0 ? step.costs[step.costs.length - 1]! : null,
    optimizerIterations: step ? step.costs.length : null,
    // Iteration 0 is the coarse prediction; each Parareal iteration adds one convergence entry.
    pararealIterations: step && step.predictions.length > 1 ? step.convergence.length : null,
    replan: step?.replan
      ? { replanned: step.replan.replanned, offMm: step.replan.divergence.translation * 1000 }
      : null,
  };
}

function activity(o: ProgressInput, controlDuration: number | null): Activity | null {
  if (!o.active) return null;
  // Waiting for the operator: nothing plans, and no clock counts against a control.
  if (o.realStart === 'awaiting-arm') return { kind: 'awaiting-arm', step: 0, seconds: 0, of: null };
  if (o.waitingSince === null) return null;
  const since = Math.max(0, o.now - o.waitingSince);
  if (o.realStart === 'preparing') return { kind: 'preparing', step: 0, seconds: since, of: null };
  const of = controlDuration;
  if (!o.step) return { kind: 'planning', step: 0, seconds: since, of };
  const last = o.maxExecutedActions !== null && o.step.step + 1 >= o.maxExecutedActions;
  // Synchronous loop: the arm executes the step just planned, then the next one is planned.
  // Asynchronous: the next one is planned while the arm executes this one.
  if (last || (!o.asynchronous && of !== null && since < of))
    return { kind: 'executing', step: o.step.step, seconds: since, of };
  const planning = o.asynchronous || of === null ? since : since - of;
  return { kind: 'planning', step: o.step.step + 1, seconds: planning, of };
}

/** "1.3 s" */
export function formatDuration(s: number, decimals = 1): string {
  return `${s.toFixed(decimals)} s`;
}

export function formatCostValue(cost: number | null): string {
  if (cost === null) return '–';
  return Math.abs(cost) >= 1e5 || (cost !== 0 && Math.abs(cost) < 1e-3)
    ? cost.toExponential(2)
    : cost.toPrecision(4);
}
