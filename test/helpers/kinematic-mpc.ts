/**
 * The MPC loop (mpc-loop.ts runMpc) on the kinematic toy, without MuJoCo: a planner that pushes
 * straight and predicts kinematic motion, a plant that moves the same way, and the loop options
 * the loop tests share. Each test still says the timing it needs (a planner's delay, a plant's
 * execution time) and asserts on what the planner was asked and the steps the loop reported.
 */
import { plannerStepSchema, type PlannerStep } from '#contract/planner-events';
import { type Plan, type PlanContext, type Planner } from '../../src-main/planning/planner';
import { type Control, type Tolerance } from '#contract/state';
import type { State } from '#contract/state';
import { runMpc, type MpcLoopOptions } from '../../src-main/planning/mpc-loop';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import type { Plant } from '../../src-main/planning/plant';
import { kinematicStep } from '../planning/toy';
import { referenceScene } from './scenes';
import { sleep } from '../../src-main/common/timers';

/** The ISRR obstacle task's table without its obstacle: straight pushes stay clear. */
export const scene = { ...referenceScene('isrr-obstacle'), obstacles: [] };
export const geometry = new TaskGeometry(scene);
const L = geometry.layout;

export interface KinematicPlannerOptions {
  /** The control of every step's plan (default 0.05 m/s along x). */
  control?: (step: number) => Control;
  /**
   * How long planning step n takes (ms of wall time). Given, the planner waits on a timer even for
   * 0 ms, so its answer comes a macrotask later; not given, it answers at once.
   */
  delay?: (step: number) => number;
}

/** Plans three controls of `control(step)`, predicting kinematic motion; records every request and when. */
export class KinematicPlanner implements Planner {
  readonly asked: { ctx: PlanContext; at: number }[] = [];
  constructor(
    private readonly dt: number,
    private readonly options: KinematicPlannerOptions = {},
  ) {}

  /** What the planner was asked, in order. */
  get contexts(): PlanContext[] {
    return this.asked.map((a) => a.ctx);
  }

  async plan(ctx: PlanContext): Promise<Plan> {
    this.asked.push({ ctx, at: performance.now() });
    if (this.options.delay) await sleep(this.options.delay(ctx.step));
    const u = this.options.control?.(ctx.step) ?? [0.05, 0];
    const states = [ctx.x];
    for (let k = 0; k < 3; k++) states.push(kinematicStep(L, states[k]!, u, this.dt));
    return {
      controls: [u, u, u],
      restTime: 0,
      iterates: [states],
      iterationLabels: [3],
      changes: [],
      costs: [1],
      predictionTime: 0,
      sequences: 12,
      work: { cpu: 0, steps: 0, solverIterations: 0 },
    };
  }
}

export interface KinematicPlantOptions {
  /** Wall time one execution takes (ms); given, even 0 waits on a timer; not given, none. */
  real?: number;
  /** Sideways drift added to every control (m/s): the table does not do what the plan predicts. */
  bias?: number;
}

/** Moves pusher and goal object kinematically; records every execution and when it ran. */
export class KinematicPlant implements Plant {
  readonly executed: { u: Control; start: number; end: number }[] = [];
  constructor(
    public x: State,
    private readonly options: KinematicPlantOptions = {},
  ) {}
  observe(): State {
    return Float64Array.from(this.x);
  }
  async execute(u: Control, dt: number): Promise<State[]> {
    const start = performance.now();
    if (this.options.real !== undefined) await sleep(this.options.real);
    this.x = kinematicStep(L, this.x, [u[0]!, u[1]! + (this.options.bias ?? 0)], dt);
    this.executed.push({ u, start, end: performance.now() });
    return [this.observe()];
  }
}

export interface KinematicLoopOptions {
  dt: number;
  maxActions: number;
  /** Confirms a plan's start state; with `asynchronous`, also how far a prediction may miss. */
  tolerance: Tolerance;
  asynchronous: boolean;
  firstPlan?: MpcLoopOptions['firstPlan'];
  signal?: AbortSignal;
}

/** Runs the loop on `plant` with `planner`; every step it reports is checked against the contract. */
export function runKinematicLoop(
  plant: Plant,
  planner: Planner,
  o: KinematicLoopOptions,
): { summary: ReturnType<typeof runMpc>; steps: PlannerStep[] } {
  const steps: PlannerStep[] = [];
  const summary = runMpc({
    plant,
    planner,
    geometry,
    controlDuration: o.dt,
    maxActions: o.maxActions,
    timeLimit: 1e6,
    workers: 1,
    theoreticalSpeedup: null,
    asynchronous: o.asynchronous ? { tolerance: o.tolerance } : null,
    confirmTolerance: o.tolerance,
    ...(o.firstPlan ? { firstPlan: o.firstPlan } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    onStep: (s) => steps.push(plannerStepSchema.parse(s)),
  });
  return { summary, steps };
}
