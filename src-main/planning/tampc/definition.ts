/**
 * TAMPC and its baseline UAMPC in the planner registry (planners.ts). UAMPC is WAFR 2018's
 * baseline: TAMPC that considers only its slowest pushes (n_min = n_max).
 */
import { tableCorners, tableMargin } from '../costs/cost-terms';
import type { Planner, PlannerDefinition, PlannerParts } from '../planner';
import { TampcPlanner } from './tampc-planner';

/** TAMPC with the task's action bounds, or (UAMPC) with its minimum raised to its maximum. */
function tampcPlanner(p: PlannerParts, minActions: 'task' | 'max'): Planner {
  const t = p.task.planner.tampc;
  return new TampcPlanner({
    geometry: p.geometry,
    rollout: p.rollout,
    cost: p.cost,
    rng: p.rng,
    optimizer: t.iterations === undefined ? p.optimizer : { ...p.optimizer, maxIterations: t.iterations },
    controlDuration: p.task.planner.controlDuration,
    candidates: t.candidates,
    minActions: minActions === 'max' ? t.maxActions : t.minActions,
    maxActions: t.maxActions,
    samples: t.samples,
    restTime: t.restTime,
    tableCorners: tableCorners(p.geometry, tableMargin(p.task.costs)),
    iterationLabels: p.iterationLabels,
    sampler: p.sampler(),
    settle: p.settle(),
  });
}

export const tampc: PlannerDefinition = {
  name: 'task-adaptive MPC',
  description: 'TAMPC: task-adaptive MPC, fast pushes where samples show them safe (WAFR 2018 Alg. 1-3)',
  offered: true,
  create: (p) => tampcPlanner(p, 'task'),
};

export const uampc: PlannerDefinition = {
  name: 'uniformly slow MPC',
  description: 'UAMPC: TAMPC limited to its slowest pushes, the uniformly slow baseline (WAFR 2018)',
  offered: false,
  create: (p) => tampcPlanner(p, 'max'),
};
