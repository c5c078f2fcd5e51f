/**
 * What-if comparisons in words: the cost of a plan and the settings a re-plan used.
 */
import type { PlannerSettings } from '#contract/planner-settings';
import { type PlannerStep } from '#contract/planner-events';

/** The plan's cost: the optimizer's best cost after its last iteration; null when none was logged. */
export function planCost(step: PlannerStep): number | null {
  return step.costs.length > 0 ? step.costs[step.costs.length - 1]! : null;
}

export function formatCost(cost: number | null): string {
  return cost === null ? 'not logged' : cost.toPrecision(4);
}

/** "Parareal, 3 iterations, 20 rollouts" */
export function describeSettings(s: PlannerSettings): string {
  const model =
    s.predictionModel === 'parareal'
      ? s.parareal.mode === 'iterations'
        ? `Parareal, ${s.parareal.iterations} iteration${s.parareal.iterations === 1 ? '' : 's'}`
        : `Parareal, adaptive (at most ${s.parareal.maxIterations} iterations)`
      : s.predictionModel === 'fine'
        ? 'fine model'
        : s.predictionModel === 'auto'
          ? 'auto model (fine or Parareal)'
          : 'coarse model';
  const coarse = s.predictionModel !== 'fine' && s.coarseModel === 'learned' ? ', learned coarse' : '';
  return `${model}${coarse}, ${s.rollouts} rollouts`;
}
