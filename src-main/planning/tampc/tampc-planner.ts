/**
 * Task-adaptive MPC (WAFR 2018 Alg. 1-3) and its baseline UAMPC.
 *
 * Each step:
 * 1. N candidate sequences (Alg. 2): straight constant-velocity pushes of the goal object to the
 *    goal (with a gripper: approaches to the target, gripper-plans.ts) whose lengths run linearly
 *    from n_min to n_max controls of fixed duration, so short sequences are fast pushes and long
 *    ones slow pushes. After the first step, one candidate is
 *    the rest of the previously chosen sequence (Alg. 1 line 14).
 * 2. Each candidate is optimized (Alg. 3 = Alg. 4 per candidate); they run concurrently and share
 *    the worker pool. Each returns U*_i and the value estimate V~_i along its trajectory.
 * 3. Each first action U*_i[0] is evaluated under uncertainty (Alg. 1 lines 4-9): Q stochastic
 *    executions (control, then a rest time for the objects to settle), handed to the sampler in
 *    one batch as soon as that candidate's optimization ends, so they queue on the worker pool
 *    behind the other candidates' rollouts instead of running after all of them; the mean of
 *    L(x0, x', u) + V~_i[1]. V~_i[1] is the value of the remaining controls; V~_i[0] would count
 *    the first action twice, since the sampled L replaces its deterministic cost. A one-control
 *    candidate has no remainder, so its sampled next state is charged the terminal cost instead.
 * 4. The first action of the cheapest candidate is executed (by the MPC loop).
 *
 * UAMPC is the same planner with n_min = n_max: only slow pushes are considered.
 */
import type { ControlLimits } from '#contract/end-effector/end-effector';
import { type Control } from '#contract/state';
import type { State } from '#contract/state';
import { addFineWork, noFineWork } from '../../parareal/parareal';
import type { TrajectoryCost } from '../costs/trajectory-cost';
import { approachAndPush } from '../fresh-sequences';
import type { Plan, PlanContext, Planner, RestPredictor, StochasticSampler } from '../planner';
import { prePushPoint } from '../push-heading';
import { clampControl } from '../control-space';
import { approachTarget } from '../gripper-plans';
import { optimize, type OptimizeResult, type OptimizerSettings } from '../optimizer';
import type { TaskGeometry } from '../task-geometry';
import { Rng } from '../../common/rng';
import type { BatchRollout } from '../rollout';
import { firstWaypoint, wayInsideLength, type Corner } from '../way-inside';

export interface TampcOptions {
  geometry: TaskGeometry;
  rollout: BatchRollout;
  cost: TrajectoryCost;
  sampler: StochasticSampler;
  /** Predicts a plan's rest for asynchronous MPC (Planner.settle); absent: plans run synchronously. */
  settle?: RestPredictor;
  rng: Rng;
  optimizer: OptimizerSettings;
  controlDuration: number;
  candidates: number;
  minActions: number;
  maxActions: number;
  samples: number;
  restTime: number;
  /** The table outline's inner corners the pushes go round (way-inside.ts); none on a convex table. */
  tableCorners?: readonly Corner[];
  iterationLabels(count: number): number[];
}

/**
 * Alg. 2: N straight constant-velocity sequences to the goal, n_k = round((n_max - n_min) k /
 * (N - 1)) + n_min; with a gripper, N approaches of n_k controls to the target (gripper-plans.ts).
 * The straight push presumes the pusher behind the object; after a fast push the object often
 * slides off sideways and the pusher ends beside or past it, where the same velocities would
 * carry it away from the object for good (WAFR low-accuracy runs that ran out of actions with the
 * pusher metres off the table). Out of position, a candidate first walks the pusher round to the
 * pre-push point and then pushes (approachAndPush), its speed chosen so that approach and push
 * fit its n_k controls, so it is still fast or slow by its length.
 *
 * On a table with inner corners (`tableCorners`, way-inside.ts) the pushes follow the way inside
 * the table rather than the straight line: they head for its first waypoint (the tangent point
 * at the corner) and on from there to the goal, at the speed that would cover the whole way in
 * n_k controls; no control runs past a waypoint, since its straight move would cut the corner.
 */
export function candidateSequences(
  geometry: TaskGeometry,
  x: State,
  o: {
    candidates: number;
    minActions: number;
    maxActions: number;
    controlDuration: number;
    tableCorners?: readonly Corner[];
  } & ControlLimits,
): Control[][] {
  const p = geometry.layout.sliderPose(x, geometry.goalIndex);
  const corners = o.tableCorners ?? [];
  const target = firstWaypoint(p, geometry.goal, corners);
  const bends = target !== geometry.goal;
  const dx = geometry.goal.x - p.x;
  const dy = geometry.goal.y - p.y;
  const way = bends ? wayInsideLength(p, geometry.goal, corners) : Math.hypot(dx, dy);
  const approach = geometry.fingers ? 0 : approachDistance(geometry, x, target);
  const out: Control[][] = [];
  for (let k = 0; k < o.candidates; k++) {
    const n =
      o.candidates === 1
        ? o.minActions
        : Math.round(((o.maxActions - o.minActions) * k) / (o.candidates - 1)) + o.minActions;
    if (geometry.fingers) {
      out.push(approachTarget(geometry, x, { n, dt: o.controlDuration, limits: o }));
      continue;
    }
    if (approach > 0) {
      const speed = Math.min((approach + way) / (n * o.controlDuration), o.maxSpeed);
      out.push(approachAndPush(geometry, x, n, speed, o.controlDuration, target));
      continue;
    }
    if (bends) {
      out.push(pushAlong([p, target, geometry.goal], n, way / (n * o.controlDuration), o.controlDuration, o));
      continue;
    }
    const u = clampControl([dx / (n * o.controlDuration), dy / (n * o.controlDuration)], o);
    out.push(Array.from({ length: n }, () => u));
  }
  return out;
}

/**
 * n controls of duration dt moving a point along the polyline `points` at `speed`, each ending at
 * the next vertex rather than passing it (the move would cut the bend), and standing still once
 * the last vertex is reached.
 */
function pushAlong(
  points: readonly { x: number; y: number }[],
  n: number,
  speed: number,
  dt: number,
  limits: ControlLimits,
): Control[] {
  let { x, y } = points[0]!;
  let next = 1;
  const out: Control[] = [];
  for (let k = 0; k < n; k++) {
    const to = points[Math.min(next, points.length - 1)]!;
    const d = Math.hypot(to.x - x, to.y - y);
    const step = Math.min(speed * dt, d);
    const u =
      d > 0 ? clampControl([((to.x - x) / d) * (step / dt), ((to.y - y) / d) * (step / dt)], limits) : [0, 0];
    out.push(u);
    x += u[0]! * dt;
    y += u[1]! * dt;
    if (step === d) next++;
  }
  return out;
}

/**
 * How far (m) beyond contact distance the pusher may stand behind the object and still push
 * straight (within half the contact distance of the push line): the sampled WAFR starts put it
 * 5 mm behind contact, and a push that ran true leaves it touching the object.
 */
const IN_POSITION = 0.02;

/** 0 when the pusher stands behind the goal object to push it to `target`, else its distance (m) from the pre-push point. */
function approachDistance(geometry: TaskGeometry, x: State, target: { x: number; y: number }): number {
  const p = geometry.layout.sliderPose(x, geometry.goalIndex);
  const { behind, contact, direction } = prePushPoint(geometry, x, target);
  const [px, py] = geometry.layout.pusherPosition(x);
  // The pusher's offset from the object centre along the push and across it.
  const along = (px - p.x) * direction[0] + (py - p.y) * direction[1];
  const across = Math.abs((px - p.x) * direction[1] - (py - p.y) * direction[0]);
  const inPosition = along < 0 && -along <= contact + IN_POSITION && across <= contact / 2;
  return inPosition ? 0 : Math.hypot(behind.x - px, behind.y - py);
}

export interface CandidateEvaluation {
  optimized: OptimizeResult;
  /** Mean sampled value of the first action (lower is better). */
  value: number;
}

export class TampcPlanner implements Planner {
  /**
   * The last two plans this planner made and the signals they were made under: the fallback for
   * the carried candidate when the caller names no previous plan (see carriedFrom).
   */
  private recent: { controls: Control[]; signal: AbortSignal | undefined }[] = [];
  /** Evaluations of the last plan() call, for tests and logs. */
  lastEvaluations: CandidateEvaluation[] = [];
  readonly settle?: RestPredictor;

  constructor(private readonly o: TampcOptions) {
    if (o.settle) this.settle = o.settle;
  }

  /**
   * The rest of the sequence chosen last step (Alg. 1 line 14): of the plan that ran before this
   * step when the caller names it (the MPC loop does; with asynchronous MPC the planner has by
   * then made a plan for a predicted state that may have been dropped), else of the last plan
   * made that was not withdrawn (its signal aborted): after the gripper's reflex, which runs
   * without a plan, and for callers that plan step after step themselves.
   */
  private carriedFrom(ctx: PlanContext): Control[] | null {
    const last = ctx.previous ?? [...this.recent].reverse().find((r) => !r.signal?.aborted)?.controls ?? null;
    return last && last.length > 1 ? last.slice(1) : null;
  }

  async plan(ctx: PlanContext): Promise<Plan> {
    const o = this.o;
    const carried = ctx.step === 0 ? null : this.carriedFrom(ctx);
    const fresh = candidateSequences(o.geometry, ctx.x, {
      candidates: carried ? o.candidates - 1 : o.candidates,
      minActions: o.minActions,
      maxActions: o.maxActions,
      controlDuration: o.controlDuration,
      ...(o.tableCorners ? { tableCorners: o.tableCorners } : {}),
      maxSpeed: o.optimizer.maxSpeed,
      maxYawRate: o.optimizer.maxYawRate,
      maxOpeningSpeed: o.optimizer.maxOpeningSpeed,
    });
    const initial = carried ? [...fresh, carried] : fresh;
    // Every seed is drawn before any await: the candidates' optimizations and samples finish in
    // whatever order the pool returns them, and must not share a stream. (One per candidate, then
    // Q per candidate in candidate order: the order in which they were drawn when the samples ran
    // one by one after all optimizations.)
    const seeds = initial.map(() => o.rng.nextUint32());
    const sampleSeeds = initial.map(() => Array.from({ length: o.samples }, () => o.rng.nextUint32()));
    this.lastEvaluations = await Promise.all(
      initial.map(async (u0, i) => {
        const optimized = await optimize({
          x0: ctx.x,
          initial: u0,
          uPrev: ctx.uPrev,
          rollout: o.rollout,
          cost: o.cost,
          rng: new Rng(seeds[i]!),
          settings: o.optimizer,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        return { optimized, value: await this.sampledValue(ctx, optimized, sampleSeeds[i]!) };
      }),
    );
    const optimized = this.lastEvaluations.map((e) => e.optimized);
    const best = this.lastEvaluations.reduce((a, b) => (b.value < a.value ? b : a));
    const chosen = best.optimized;
    this.recent = [...this.recent.slice(-1), { controls: chosen.controls, signal: ctx.signal }];
    return {
      controls: chosen.controls,
      restTime: o.restTime,
      iterates: chosen.iterates,
      iterationLabels: o.iterationLabels(chosen.iterates.length),
      changes: chosen.changes,
      costs: chosen.costHistory,
      predictionTime: optimized.reduce((a, r) => a + r.predictionTime, 0),
      // The candidates' optimizations; the sampled values predict single controls, not sequences.
      sequences: optimized.reduce((a, r) => a + r.sequencesPredicted, 0),
      work: optimized.reduce((a, r) => addFineWork(a, r.work), noFineWork()),
    };
  }

  private async sampledValue(ctx: PlanContext, r: OptimizeResult, seeds: readonly number[]): Promise<number> {
    const o = this.o;
    const u = r.controls[0]!;
    const rest = r.controls.length > 1 ? r.value[1]! : 0;
    const next = await o.sampler(
      seeds.map((seed) => ({ x0: ctx.x, u, dt: o.controlDuration, restTime: o.restTime, seed })),
    );
    let total = 0;
    for (const x1 of next)
      total += o.cost.step(ctx.x, x1, u, ctx.uPrev) + (r.controls.length > 1 ? rest : o.cost.final(x1));
    return total / o.samples;
  }
}
