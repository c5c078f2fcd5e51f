/**
 * The MPC planner (ISRR 2019 Sec. III, WAFR 2018 Sec. 6): one optimized control sequence per
 * step, warm-started from the previous one shifted by a step, weighed against fresh candidates
 * that approach the object and push it towards the goal or round the obstacle in its way. The
 * loop that executes plans is mpc-loop.ts; the task-adaptive planner is tampc/tampc-planner.ts.
 */
import type { Control } from '#contract/state';
import type { Plan, PlanContext, Planner } from '../planner';
import type { TrajectoryCost } from '../costs/trajectory-cost';
import { optimize, type OptimizerSettings } from '../optimizer';
import type { TaskGeometry } from '../task-geometry';
import type { Rng } from '../../common/rng';
import type { BatchRollout } from '../rollout';
import { approachTarget } from '../gripper-plans';
import { waypoints } from '../push-heading';
import { approachAndPush, straightToGoal } from '../fresh-sequences';

/** Warm start (WAFR 2018 Sec. 6): drop the executed control and repeat the last one at the end. */
export function shiftControls(controls: readonly Control[]): Control[] {
  if (controls.length === 0) return [];
  return [...controls.slice(1), controls[controls.length - 1]!];
}

export interface MpcPlannerOptions {
  geometry: TaskGeometry;
  rollout: BatchRollout;
  cost: TrajectoryCost;
  rng: Rng;
  optimizer: OptimizerSettings;
  horizon: number;
  /** Speed of the initial straight-line sequence (quasi-static speed, m/s). */
  initialSpeed: number;
  /**
   * Speed of the full-speed fresh candidates (m/s, capped at the optimizer's maxSpeed; default
   * maxSpeed); equal to initialSpeed, only quasi-static candidates are weighed.
   */
  fastSpeed?: number;
  /** Clearance (m) the fresh candidates plan to keep from obstacles. */
  obstacleClearance: number;
  controlDuration: number;
  /** Labels for the rollout's iterates: [0..K] for Parareal, [0] coarse, [horizon] fine. */
  iterationLabels(count: number): number[];
}

/** Standard MPC: one optimized sequence, warm-started from the previous one shifted by a step. */
export class MpcPlanner implements Planner {
  constructor(private readonly o: MpcPlannerOptions) {}

  async plan(ctx: PlanContext): Promise<Plan> {
    const { geometry, horizon, controlDuration } = this.o;
    const maxSpeed = this.o.optimizer.maxSpeed;
    // A full speed equal to the initial one leaves the quasi-static candidates alone: the paper's
    // standard MPC (WAFR 2018 Sec. 6), without the same sequence weighed twice.
    const speeds = [...new Set([this.o.initialSpeed, Math.min(this.o.fastSpeed ?? maxSpeed, maxSpeed)])];
    // A gripper approaches the target (gripper-plans.ts), slowly and at full speed, instead of
    // pushing it.
    const approach = (speed: number): Control[] =>
      approachTarget(geometry, ctx.x, { n: horizon, dt: controlDuration, limits: this.o.optimizer, speed });
    const initial = ctx.previous
      ? shiftControls(ctx.previous)
      : geometry.fingers
        ? approach(this.o.initialSpeed)
        : straightToGoal(geometry, ctx.x, horizon, this.o.initialSpeed);
    // Fresh candidates beside the warm start: approach and push towards the goal, or around either
    // side of the obstacle in the way, slowly and at full speed. Sampling noise alone moves a
    // straight push sideways by centimetres, not the decimetre it takes to get around.
    const fresh = geometry.fingers
      ? speeds.map(approach)
      : waypoints(geometry, ctx.x, this.o.obstacleClearance).flatMap((target) =>
          speeds.map((speed) => approachAndPush(geometry, ctx.x, horizon, speed, controlDuration, target)),
        );
    const r = await optimize({
      x0: ctx.x,
      initial,
      alternatives: fresh,
      uPrev: ctx.uPrev,
      rollout: this.o.rollout,
      cost: this.o.cost,
      rng: this.o.rng,
      settings: this.o.optimizer,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    return {
      controls: r.controls,
      restTime: 0,
      iterates: r.iterates,
      iterationLabels: this.o.iterationLabels(r.iterates.length),
      changes: r.changes,
      costs: r.costHistory,
      predictionTime: r.predictionTime,
      sequences: r.sequencesPredicted,
      work: r.work,
      rollouts: r.rollouts,
    };
  }
}
