/**
 * The MPC planner (ISRR 2019 Sec. III, WAFR 2018 Sec. 6): one optimized control sequence per
 * step, warm-started from the previous one shifted by a step, weighed against fresh candidates
 * that approach the object and push it towards the goal or round the obstacle in its way. The
 * loop that executes plans is mpc-loop.ts; the task-adaptive planner is tampc.ts.
 */
import type { State } from '#contract/state';
import type { Control, FineWork, Tolerance } from '../parareal/parareal';
import type { TrajectoryCost } from './costs/trajectory-cost';
import { optimize, type OptimizerSettings } from './optimizer';
import type { TaskGeometry } from './outcome';
import type { Rng } from '../common/rng';
import type { BatchRollout } from './rollout';
import { approachTarget } from './gripper-plans';
import { prePushPoint, waypoints } from './push-heading';

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
 * ran, the next plan. The kinds and how each is built from a task are in planners.ts.
 */
export interface Planner {
  plan(ctx: PlanContext): Promise<Plan>;
  /**
   * The state after `restTime` s with the arm at rest from x, as the planner's model predicts it:
   * for the planners whose plans end in a rest (TAMPC, UAMPC), so that asynchronous MPC can plan
   * the next step from where the objects come to rest. Without it such plans run synchronously.
   */
  settle?(x: State, restTime: number, signal?: AbortSignal): Promise<State>;
  /**
   * Whether the planner has nothing more to do: a scripted planner (an identification run's
   * probing pushes, physics-probe/) ends its run with it, and only with it or a failure: an object
   * it pushes into the goal region does not end the run. Task planners leave it out: their runs
   * end on the task's outcome.
   */
  finished?(): boolean;
}

/** Warm start (WAFR 2018 Sec. 6): drop the executed control and repeat the last one at the end. */
export function shiftControls(controls: readonly Control[]): Control[] {
  if (controls.length === 0) return [];
  return [...controls.slice(1), controls[controls.length - 1]!];
}

/** n controls of a straight push of the goal object towards the goal centre at `speed`. */
export function straightToGoal(geometry: TaskGeometry, x: State, n: number, speed: number): Control[] {
  const p = geometry.layout.sliderPose(x, geometry.goalIndex);
  const dx = geometry.goal.x - p.x;
  const dy = geometry.goal.y - p.y;
  const d = Math.hypot(dx, dy);
  const u: Control = d > 1e-9 ? [(dx / d) * speed, (dy / d) * speed] : [0, 0];
  return Array.from({ length: n }, () => u);
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

/**
 * A fresh sequence for when the warm start has lost the object: the pusher heads for the point
 * behind the goal object (as seen from `target`, by default the goal), then pushes it towards the
 * target, at `speed`.
 */
export function approachAndPush(
  geometry: TaskGeometry,
  x: State,
  n: number,
  speed: number,
  dt: number,
  target: { x: number; y: number } = geometry.goal,
): Control[] {
  const L = geometry.layout;
  const s = L.sliderPose(x, geometry.goalIndex);
  const { behind, reach, direction } = prePushPoint(geometry, x, target);
  const [gx, gy] = direction;
  let [px, py] = L.pusherPosition(x);
  const targets = [...aroundObject(s, reach, { x: px, y: py }, behind), behind];
  const out: Control[] = [];
  // Once behind the object the pusher keeps pushing: the object moves ahead of it from then on.
  let pushing = false;
  for (let t = 0; t < n; t++) {
    let target = targets[0]!;
    while (targets.length > 1 && Math.hypot(target.x - px, target.y - py) < 1e-3) {
      targets.shift();
      target = targets[0]!;
    }
    const dx = target.x - px;
    const dy = target.y - py;
    const d = Math.hypot(dx, dy);
    pushing ||= targets.length === 1 && d < 1e-3;
    const step = Math.min(speed, d / dt);
    const u: Control = pushing ? [gx * speed, gy * speed] : [(dx / d) * step, (dy / d) * step];
    out.push(u);
    px += u[0]! * dt;
    py += u[1]! * dt;
  }
  return out;
}

/** Largest turn (rad) between two detour points, so the chord between them stays clear of the object. */
const DETOUR_STEP = Math.PI / 4;
/** How far outside the contact distance the detour runs (m). */
const DETOUR_GAP = 0.015;

/**
 * Points on a circle around the object that take the pusher from `from` to `to` without crossing
 * it (the shorter way round), or none when the straight way is already clear. Going straight
 * through would push the object away from where it is to go, e.g. after it overshot the goal.
 */
function aroundObject(
  s: { x: number; y: number },
  reach: number,
  from: { x: number; y: number },
  to: { x: number; y: number },
): { x: number; y: number }[] {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((s.x - from.x) * dx + (s.y - from.y) * dy) / len2)) : 0;
  if (Math.hypot(s.x - (from.x + t * dx), s.y - (from.y + t * dy)) >= reach - 1e-3) return [];
  const a0 = Math.atan2(from.y - s.y, from.x - s.x);
  const a1 = Math.atan2(to.y - s.y, to.x - s.x);
  const turn = Math.atan2(Math.sin(a1 - a0), Math.cos(a1 - a0));
  const m = Math.ceil(Math.abs(turn) / DETOUR_STEP);
  const r = reach + DETOUR_GAP;
  return Array.from({ length: m }, (_, k) => {
    const a = a0 + (turn * (k + 1)) / m;
    return { x: s.x + r * Math.cos(a), y: s.y + r * Math.sin(a) };
  });
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
      : geometry.gripper
        ? approach(this.o.initialSpeed)
        : straightToGoal(geometry, ctx.x, horizon, this.o.initialSpeed);
    // Fresh candidates beside the warm start: approach and push towards the goal, or around either
    // side of the obstacle in the way, slowly and at full speed. Sampling noise alone moves a
    // straight push sideways by centimetres, not the decimetre it takes to get around.
    const fresh = geometry.gripper
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
