/**
 * The planner interface (in the manner of MuJoCo MPC's planners/planner.h): what the MPC loop asks
 * of every planner, what a plan holds, and what a planner is built from. The planners themselves
 * are in mpc/ and tampc/, listed in planners.ts.
 */
import type { Scene } from '#contract/scene';
import type { Control, State, Tolerance } from '#contract/state';
import type { Rng } from '../common/rng';
import type { FineWork } from '../parareal/parareal';
import type { TrajectoryCost } from './costs/trajectory-cost';
import type { OptimizerSettings } from './optimizer';
import type { BatchRollout } from './rollout';
import type { TaskGeometry } from './task-geometry';
import type { Task } from './task-file';

/** One stochastic execution: u from x0 for dt, then restTime at rest, with the noise stream `seed`. */
export interface SampleRequest {
  x0: State;
  u: Control;
  dt: number;
  restTime: number;
  seed: number;
}

/** Runs a batch of stochastic executions (on the worker pool in task-run.ts); next states in order. */
export type StochasticSampler = (requests: readonly SampleRequest[]) => Promise<State[]>;

/** The state after restTime s at rest from x, noise-free (the prediction model on the worker pool in task-run.ts). */
export type RestPredictor = (x: State, restTime: number, signal?: AbortSignal) => Promise<State>;

export interface PlanContext {
  x: State;
  step: number;
  /** The control executed before this step ([0, 0] at the start). */
  uPrev: Control;
  /**
   * The sequence whose first control was executed before this step (the warm start, shifted by a
   * step); absent at the start. The caller says which plan that was: with asynchronous MPC the
   * planner is called for a predicted state before the previous plan has run, and a plan dropped
   * for a fresh one must not become the warm start of its replacement.
   */
  previous?: readonly Control[];
  /** Aborted when the plan is no longer wanted (a dropped asynchronous plan, a run that ended). */
  signal?: AbortSignal;
}

export interface Plan {
  /** The chosen sequence; its first control is executed. */
  controls: Control[];
  /** Time with zero pusher velocity after the action, for the objects to come to rest (s). */
  restTime: number;
  /** Predicted states of the chosen sequence, per Parareal iteration (iterates[k][n]). */
  iterates: State[][];
  /** Label of each entry of iterates (0 = coarse; the fine model alone counts as exact, k = N). */
  iterationLabels: number[];
  changes: Tolerance[];
  /** Best total cost after each optimizer iteration. */
  costs: number[];
  /** Wall time spent predicting (s). */
  predictionTime: number;
  /** Control sequences predicted to make the plan (the optimizer's batches): the plan's work. */
  sequences: number;
  /** The fine work of those sequences' predictions on the workers (CPU time, MuJoCo steps, solver iterations). */
  work: FineWork;
  /** Predicted states of the optimizer's last noisy rollouts, when the planner keeps them. */
  rollouts?: State[][];
}

/**
 * What every planner is to the MPC loop: given the observed (or predicted) state and the plan that
 * ran, the next plan. Each kind lives in a folder of its own (mpc/, tampc/) and is listed in the
 * registry (planners.ts).
 */
export interface Planner {
  /** The next plan from ctx.x, warm-started from ctx.previous; its first control is executed. */
  plan(ctx: PlanContext): Promise<Plan>;
  /** The state after restTime s at rest from x, as the planner's model predicts it (plans that end in a rest). */
  settle?(x: State, restTime: number, signal?: AbortSignal): Promise<State>;
  /**
   * Whether the planner has nothing more to do: a scripted planner (an identification run's
   * probing pushes, physics-probe/) ends its run with it, and only with it or a failure: an object
   * it pushes into the goal region does not end the run. Task planners leave it out.
   */
  finished?(): boolean;
}

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

/** A planner kind as the registry lists it: its name and description for people, and how to build it. */
export interface PlannerDefinition {
  /** Short name for people ("MPC", "task-adaptive MPC"). */
  readonly name: string;
  /** What the planner is and where it comes from, for people. */
  readonly description: string;
  /** Whether the console and `parapush run` offer it (a baseline for experiments is not offered). */
  readonly offered: boolean;
  /** Builds the planner of one task run. */
  create(parts: PlannerParts): Planner;
}
