/**
 * The planners a task may ask for, by kind, and how each is built from a task run's parts: one
 * registry instead of a choice spread over if/else (MuJoCo MPC keeps its planners the same way).
 * UAMPC is WAFR 2018's baseline: TAMPC that considers only its slowest pushes (n_min = n_max).
 */
import type { Scene } from '#contract/scene';
import type { Rng } from '../common/rng';
import type { TrajectoryCost } from './costs/trajectory-cost';
import { plannedClearance, tableCorners, tableMargin } from './costs/cost-terms';
import { MpcPlanner, type Planner } from './mpc';
import type { OptimizerSettings } from './optimizer';
import type { TaskGeometry } from './outcome';
import type { BatchRollout } from './rollout';
import { TampcPlanner, type RestPredictor, type StochasticSampler } from './tampc';
import type { Task } from './task-file';

/** What a planner is built from: the task and its scene, and the parts every planner shares. */
export interface PlannerParts {
  task: Task;
  scene: Scene;
  geometry: TaskGeometry;
  rollout: BatchRollout;
  cost: TrajectoryCost;
  /** The planner's seeded stream (exploration noise). */
  rng: Rng;
  optimizer: OptimizerSettings;
  /** Labels of a plan's iterates (task-run.ts iterationLabeller). */
  iterationLabels: (count: number) => number[];
  /** Stochastic executions on the worker pool, for the planners that sample them (TAMPC). */
  sampler: () => StochasticSampler;
  /** The prediction model's rest on the worker pool, for the planners whose plans end in a rest. */
  settle: () => RestPredictor;
}

/** The planner kinds a task file names (contract/planner-settings.ts plannerKindSchema). */
export type PlannerKind = Task['planner']['kind'];

export interface PlannerDefinition {
  /** What the planner is, for people. */
  readonly description: string;
  create(parts: PlannerParts): Planner;
}

function mpc(p: PlannerParts): Planner {
  const t = p.task.planner;
  return new MpcPlanner({
    geometry: p.geometry,
    rollout: p.rollout,
    cost: p.cost,
    rng: p.rng,
    optimizer: p.optimizer,
    horizon: t.horizon,
    initialSpeed: t.initialSpeed,
    ...(t.fastSpeed !== undefined ? { fastSpeed: t.fastSpeed } : {}),
    obstacleClearance: plannedClearance(p.task.costs),
    controlDuration: t.controlDuration,
    iterationLabels: p.iterationLabels,
  });
}

/** TAMPC with the task's action bounds, or (UAMPC) with its minimum raised to its maximum. */
function tampc(p: PlannerParts, minActions: 'task' | 'max'): Planner {
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

export const planners: { readonly [K in PlannerKind]: PlannerDefinition } = {
  mpc: {
    description: 'MPC: sampling-based optimization of a fixed-horizon push (WAFR 2018 Sec. 6)',
    create: mpc,
  },
  tampc: {
    description: 'TAMPC: task-adaptive MPC, fast pushes where samples show them safe (WAFR 2018 Alg. 1-3)',
    create: (p) => tampc(p, 'task'),
  },
  uampc: {
    description: 'UAMPC: TAMPC limited to its slowest pushes, the uniformly slow baseline (WAFR 2018)',
    create: (p) => tampc(p, 'max'),
  },
};
