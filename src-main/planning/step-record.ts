/**
 * The one description of a plan: a planner's Plan as the planner-step record the console shows,
 * the session log stores and what-if compares (PlannerStep, contract/planner-events.ts). The MPC
 * loop (mpc-loop.ts) makes one per executed action; what-if (session/what-if.ts) makes one for a
 * step planned again from a logged start.
 */
import type { PlannerStep } from '#contract/planner-events';
import { type Plan } from './planner';

export interface StepRecordInput {
  /** Executed action index, from 0. */
  step: number;
  /** Run time at which planning for this step started (s). */
  time: number;
  /** Slider ids in state-layout order. */
  sliderIds: readonly string[];
  /** The state the plan was made from. */
  start: ArrayLike<number>;
  plan: Plan;
  /** Wall time it took to make the plan (s). */
  planning: number;
  controlDuration: number;
  workers: number;
  theoreticalSpeedup: number | null;
  /** How a fresh observation compared with the plan's start, when one was checked. */
  replan?: PlannerStep['replan'];
  /** Whether the plan sent is the one begun before arming; absent when none was (PlannerStep.beforeArming). */
  beforeArming?: boolean;
  /** Include the optimizer's last rollouts, when the plan kept them (default true). */
  rollouts?: boolean;
}

/** One planner-step record: what was planned from where, predicted how, at what cost in time. */
export function stepRecord(s: StepRecordInput): PlannerStep {
  const { plan } = s;
  return {
    step: s.step,
    time: s.time,
    sliderIds: [...s.sliderIds],
    start: Array.from(s.start),
    plan: plan.controls.map((u) => [...u]),
    controlDuration: s.controlDuration,
    predictions: plan.iterates.map((states, k) => ({
      iteration: plan.iterationLabels[k]!,
      states: states.map((v) => Array.from(v)),
    })),
    convergence: plan.changes.map((c, k) => ({
      iteration: k + 1,
      translation: c.translation,
      rotation: c.rotation,
    })),
    costs: plan.costs,
    ...(plan.rollouts && s.rollouts !== false
      ? { rollouts: plan.rollouts.map((t) => t.map((v) => Array.from(v))) }
      : {}),
    ...(s.replan ? { replan: s.replan } : {}),
    ...(s.beforeArming !== undefined ? { beforeArming: s.beforeArming } : {}),
    timings: {
      planning: s.planning,
      prediction: plan.predictionTime,
      sequences: plan.sequences,
      workerCpu: plan.work.cpu,
      fineSteps: plan.work.steps,
      solverIterations: plan.work.solverIterations,
      workers: s.workers,
      theoreticalSpeedup: s.theoreticalSpeedup,
    },
  };
}
