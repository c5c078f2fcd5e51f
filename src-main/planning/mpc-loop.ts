/**
 * The model-predictive control loop (ISRR 2019 Sec. III, WAFR 2018 Sec. 6): observe, check the
 * task, plan, execute the first control, repeat. It stops on success, on failure (obstacle hit,
 * object off the table, non-goal object in the goal region, anywhere along the executed path), at
 * the action limit or at the time limit, and emits one planner-step event per executed action.
 *
 * Two modes:
 * - synchronous: the arm holds still while each step is planned; task time = planning time +
 *   execution time.
 * - asynchronous: step n+1 is planned while step n executes, from the state the plan predicts at
 *   the end of control n (after its rest, for the planners whose plans end in one: TAMPC and
 *   UAMPC; the planner predicts the rest). When the observation arrives it is compared with that
 *   prediction; a difference beyond the tolerance drops the plan and plans again from the
 *   observation (the step event says so). A plan later than its control leaves the arm holding
 *   still, which is the plant's contract after every control, never a replay of the old control.
 *   Task time counts only the time the arm waits: a plan that arrives within the control (and
 *   the rest after it) costs nothing.
 *
 * In both modes a plan is executed only if it was made from a state that a fresh observation,
 * taken just before sending, confirms within the tolerance: a plan is never sent from a state the
 * table has since left (the supervisor separately refuses stale motion capture). Every plan gets
 * the run's abort signal, and the loop stops waiting for a plan the moment it aborts: an abort
 * ends the loop mid-plan, whatever is still on the workers (their queued jobs are cancelled).
 *
 * The first step's plan may be begun before the loop (planFirstStep): on a lab the run plans it
 * while its pre-flight runs and arms with it made. It is that step's pending plan: confirmed
 * against the loop's first observation like an asynchronous plan, and replaced by a fresh plan
 * when the table has left the state it was made from.
 *
 * The loop knows nothing about how a plan is made (MPC, TAMPC, UAMPC fit it) and drives any
 * Plant: the simulated execution world, whose clock is the task time, or the real robot. What a
 * step reports of its plan is step-record.ts's.
 */
import { predictionError, type PredictionError } from './prediction-error';
import { type Plan, type Planner } from './planner';
import type { State, StateLayout } from '#contract/state';
import type { PlannerStep, RunSummary } from '#contract/planner-events';
import type { TaskGeometry } from './task-geometry';
import type { Plant } from './plant';
import { restControl } from './control-space';
import { stepRecord } from './step-record';
import { wrapAngle, type Control, type Tolerance } from '#contract/state';
import { monotonicSeconds } from '../common/clock';
import { DEFAULT_REPLAN_TOLERANCE } from './replan-tolerance';

export interface MpcLoopOptions {
  plant: Plant;
  planner: Planner;
  geometry: TaskGeometry;
  controlDuration: number;
  maxActions: number;
  /** Task time limit (s). */
  timeLimit: number;
  workers: number;
  theoreticalSpeedup: number | null;
  /** Plan the next step while this one executes; null or absent: synchronous. */
  asynchronous?: { tolerance: Tolerance } | null;
  /**
   * An action taken without planning when the state calls for it: the gripper closes once the
   * goal object lies between its open fingers (task-run.ts closeOnTarget). It returns the control
   * and how long to hold it, or null; it counts as an action.
   */
  reflex?(x: State): { u: Control; duration: number } | null;
  /**
   * How far a fresh observation may be from the state a plan was made from before it is sent
   * (default: the asynchronous tolerance, else DEFAULT_REPLAN_TOLERANCE).
   */
  confirmTolerance?: Tolerance;
  /**
   * The first step's plan, begun before the loop (planFirstStep) from a state observed then: used
   * if the loop's first observation confirms that state within the confirm tolerance, else
   * dropped for a fresh plan. The loop owns it from here: it cancels it when it does not use it.
   */
  firstPlan?: FirstPlan;
  onStep?(step: PlannerStep): void;
  /**
   * After every planned control: the plan's predicted state at its end against the state observed
   * there (prediction-error.ts), before any rest. Not for a reflex, which is not predicted.
   */
  onPredictionError?(e: PredictionError): void;
  /** The run's abort: every plan gets it, and the loop ends as 'aborted' without waiting for one. */
  signal?: AbortSignal;
}

/** A plan for a run's first step begun before its loop (planFirstStep). */
export interface FirstPlan {
  /** The observed state it is planned from. */
  basis: State;
  /** The plan and its wall time (s); rejects when it failed or was given up (cancel, the run's abort). */
  plan: Promise<{ plan: Plan; planning: number }>;
  /** Resolves when the plan is made (undefined) or did not come (the error); never rejects. */
  settled: Promise<Error | undefined>;
  /** Gives the plan up: its queued predictions leave the workers. */
  cancel: AbortController;
  /** When it was begun, s (common/clock). */
  startedAt: number;
}

/**
 * Begins the first step's plan from observed state x, as the loop's own first plan is made (no
 * previous control, no warm start), before the loop runs: planning moves nothing, so a lab run
 * plans while its pre-flight runs. `signal` is the run's abort: the plan is given up the moment
 * it aborts.
 */
export function planFirstStep(o: {
  planner: Planner;
  geometry: TaskGeometry;
  x: State;
  signal?: AbortSignal;
}): FirstPlan {
  const cancel = new AbortController();
  const startedAt = monotonicSeconds();
  const signal = o.signal ? AbortSignal.any([o.signal, cancel.signal]) : cancel.signal;
  const plan = untilAborted(
    o.planner.plan({ x: o.x, step: 0, uPrev: restControl(o.geometry.layout.robotDofs), signal }),
    signal,
  ).then((made) => ({ plan: made, planning: monotonicSeconds() - startedAt }));
  const settled = plan.then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  return { basis: o.x, plan, settled, cancel, startedAt };
}

/** A plan given up because the run was aborted. */
class PlanAborted extends Error {
  override name = 'PlanAborted';
}

/**
 * `plan`, or a PlanAborted rejection as soon as `signal` aborts (a plan that fails because of the
 * abort is the abort too): an abort does not wait for predictions already on the workers.
 */
function untilAborted<T>(plan: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return plan;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new PlanAborted('aborted'));
    if (signal.aborted) {
      // The plan is given up unread: its failure (cancelled jobs) must not go unhandled.
      plan.catch(() => undefined);
      return onAbort();
    }
    signal.addEventListener('abort', onAbort, { once: true });
    plan.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? new PlanAborted('aborted') : err);
      },
    );
  });
}

/**
 * Largest difference between two states: robot and slider positions and the tool's other lengths
 * (the gripper's opening; m), slider angles and the tool's angles (the gripper's yaw; rad).
 */
export function stateDivergence(L: StateLayout, a: State, b: State): Tolerance {
  const d = L.maxSliderPoseChange(a, b);
  let translation = Math.max(d.translation, Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!));
  let rotation = d.rotation;
  for (let j = 2; j < L.robotDofs; j++) {
    if (L.tool.angles.includes(j)) rotation = Math.max(rotation, Math.abs(wrapAngle(a[j]! - b[j]!)));
    else translation = Math.max(translation, Math.abs(a[j]! - b[j]!));
  }
  return { translation, rotation };
}

const within = (d: Tolerance, t: Tolerance): boolean =>
  d.translation <= t.translation && d.rotation <= t.rotation;

interface PendingPlan {
  /** The predicted state the plan starts from (after the rest, once the planner has predicted it). */
  basis: Promise<State>;
  /**
   * The plan and how long after the control's start it was ready (s); null when the predicted
   * state calls for the reflex, which then comes next instead of a plan.
   */
  plan: Promise<{ plan: Plan; planning: number; ready: number } | null>;
  /** Abandons the plan: its queued predictions leave the workers to the plan that replaces it. */
  cancel: AbortController;
  /** The control and rest it overlaps (s): the arm waits only for what the plan takes beyond it. */
  overlap: number;
  /** Begun before the loop (MpcLoopOptions.firstPlan). */
  beforeLoop?: boolean;
}

/**
 * The first plan as the first step's pending plan: it overlaps the time before the loop began, so
 * the arm waits only for what it takes beyond that.
 */
function fromFirstPlan(f: FirstPlan, loopStart: number): PendingPlan {
  const plan = f.plan.then((p) => ({ ...p, ready: p.planning }));
  // A dropped first plan's failure must not become an unhandled rejection.
  plan.catch(() => undefined);
  return {
    basis: Promise.resolve(f.basis),
    plan,
    cancel: f.cancel,
    overlap: loopStart - f.startedAt,
    beforeLoop: true,
  };
}

interface ChosenPlan {
  plan: Plan;
  basis: State;
  planning: number;
  /** Time the arm held still waiting for this plan (s). */
  waited: number;
  replan: PlannerStep['replan'];
  /** Whether the plan sent is the one begun before the loop; undefined when there was none. */
  beforeArming?: boolean;
}

export async function runMpc(o: MpcLoopOptions): Promise<RunSummary> {
  return new MpcLoop(o).run();
}

/** One run of the loop: what it has executed so far, and the plan it has begun for the next step. */
class MpcLoop {
  private readonly L: StateLayout;
  private readonly asyncTolerance: Tolerance | null;
  /** How far a fresh observation may be from a plan's start before the plan is sent. */
  private readonly confirm: Tolerance;
  private readonly rest: Control;
  /** Task time (s). */
  private time = 0;
  private uPrev: Control;
  /** The sequence whose first control ran last: the next plan's warm start. */
  private executed: readonly Control[] | undefined;
  private readonly planningTimes: number[] = [];
  private readonly controls: Control[] = [];
  private readonly states: State[];
  private pending: PendingPlan | null;

  constructor(private readonly o: MpcLoopOptions) {
    this.L = o.geometry.layout;
    this.asyncTolerance = o.asynchronous?.tolerance ?? null;
    this.confirm = o.confirmTolerance ?? this.asyncTolerance ?? DEFAULT_REPLAN_TOLERANCE;
    this.rest = restControl(this.L.robotDofs);
    this.uPrev = this.rest;
    this.states = [o.plant.observe()];
    this.pending = o.firstPlan ? fromFirstPlan(o.firstPlan, monotonicSeconds()) : null;
  }

  async run(): Promise<RunSummary> {
    try {
      for (;;) {
        const ended = await this.step();
        if (ended) return ended;
      }
    } catch (err) {
      if (err instanceof PlanAborted) return this.finish('aborted', null, 'aborted');
      throw err;
    } finally {
      // A plan for a step that will not come must not hold the workers past the run.
      this.dropPending();
    }
  }

  /** One step: the task judged, then a reflex or a plan executed; the summary once the run ends. */
  private async step(): Promise<RunSummary | null> {
    const o = this.o;
    const x = this.states[this.states.length - 1]!;
    const ended = this.judge(x);
    if (ended) return ended;
    const reflex = o.reflex?.(x);
    if (reflex) return this.executeReflex(reflex);

    const planStart = this.time;
    const chosen = await this.confirmed(await this.choosePlan(x));
    if (o.signal?.aborted) return this.finish('aborted', null, 'aborted');
    this.report(chosen, planStart);
    this.time += chosen.waited;
    const u = chosen.plan.controls[0]!;
    this.beginNextPlan(chosen.plan, u);
    return this.execute(chosen.plan, u);
  }

  /** The run's end when the task is decided, a limit is reached or the run aborted; else null. */
  private judge(x: State): RunSummary | null {
    const o = this.o;
    const a = o.geometry.assess(x);
    // A scripted planner (Planner.finished) ends its run itself: the object in the goal region does not.
    if (a.success && !o.planner.finished) return this.finish('success', null, null);
    if (a.failure) return this.finish('failure', a.failure, a.detail);
    if (this.controls.length >= o.maxActions)
      return this.finish('action-limit', null, `${o.maxActions} actions executed`);
    if (this.time >= o.timeLimit)
      return this.finish('time-limit', null, `task time reached ${o.timeLimit} s`);
    if (o.signal?.aborted) return this.finish('aborted', null, 'aborted');
    if (o.planner.finished?.()) return this.finish('success', null, 'every scripted push done');
    return null;
  }

  /** Executes the reflex's control: nothing is planned, and no plan is pending after it. */
  private async executeReflex(reflex: { u: Control; duration: number }): Promise<RunSummary | null> {
    // Nothing to plan: the executed control still becomes the next plan's previous one.
    const path = await this.o.plant.execute(reflex.u, reflex.duration);
    this.time += reflex.duration;
    this.planningTimes.push(0);
    this.controls.push(reflex.u);
    this.uPrev = reflex.u;
    this.executed = undefined;
    this.dropPending();
    this.states.push(this.o.plant.observe());
    const crossed = this.o.geometry.firstFailure(path);
    return crossed ? this.finish('failure', crossed.failure, crossed.detail) : null;
  }

  /** The chosen plan if a fresh observation confirms its start, else a fresh plan from that observation. */
  private async confirmed(chosen: ChosenPlan): Promise<ChosenPlan> {
    if (this.o.signal?.aborted) return chosen;
    // Confirm the plan's start against a fresh observation before anything moves.
    const now = this.o.plant.observe();
    const moved = stateDivergence(this.L, now, chosen.basis);
    if (within(moved, this.confirm)) return chosen;
    const fresh = await this.planNow(now, this.controls.length);
    return {
      ...fresh,
      basis: now,
      waited: chosen.waited + fresh.planning,
      replan: { divergence: moved, replanned: true },
      ...(chosen.beforeArming !== undefined ? { beforeArming: false } : {}),
    };
  }

  /** The step's planner-step event. */
  private report(chosen: ChosenPlan, planStart: number): void {
    const o = this.o;
    this.planningTimes.push(chosen.planning);
    o.onStep?.(
      stepRecord({
        step: this.controls.length,
        time: planStart,
        sliderIds: this.L.sliderIds,
        start: chosen.basis,
        plan: chosen.plan,
        planning: chosen.planning,
        controlDuration: o.controlDuration,
        workers: o.workers,
        theoreticalSpeedup: o.theoreticalSpeedup,
        replan: chosen.replan,
        ...(chosen.beforeArming !== undefined ? { beforeArming: chosen.beforeArming } : {}),
      }),
    );
  }

  /**
   * Asynchronous MPC: begins the next step's plan from the state this plan predicts at the end of
   * its first control (and its rest), to run while the control executes.
   */
  private beginNextPlan(plan: Plan, u: Control): void {
    const o = this.o;
    const settle = o.planner.settle?.bind(o.planner);
    if (
      !this.asyncTolerance ||
      this.controls.length + 1 >= o.maxActions ||
      (plan.restTime !== 0 && settle === undefined)
    )
      return;
    const predicted = plan.iterates[plan.iterates.length - 1]?.[1];
    if (!predicted) return;
    const end = Float64Array.from(predicted);
    const cancel = new AbortController();
    const started = monotonicSeconds();
    const basis =
      plan.restTime > 0 && settle ? settle(end, plan.restTime, cancel.signal) : Promise.resolve(end);
    const step = this.controls.length + 1;
    const previous = plan.controls;
    const next = basis.then(async (b) => {
      // The reflex acts on that state without a plan: planning for it would only hold the workers.
      if (o.reflex?.(b)) return null;
      const made = await this.planNow(b, step, u, previous, cancel.signal);
      return { ...made, ready: monotonicSeconds() - started };
    });
    // A dropped plan's failure must not become an unhandled rejection.
    basis.catch(() => undefined);
    next.catch(() => undefined);
    this.pending = { basis, plan: next, cancel, overlap: o.controlDuration + plan.restTime };
  }

  /** Executes the plan's first control and its rest; the run's end if the path failed the task. */
  private async execute(plan: Plan, u: Control): Promise<RunSummary | null> {
    const o = this.o;
    const path = await o.plant.execute(u, o.controlDuration);
    const predictedEnd = plan.iterates[plan.iterates.length - 1]?.[1];
    if (o.onPredictionError && predictedEnd)
      o.onPredictionError(
        predictionError(o.geometry.layout, this.controls.length, predictedEnd, o.plant.observe()),
      );
    if (plan.restTime > 0) path.push(...(await o.plant.execute(this.rest, plan.restTime)));
    this.time += o.controlDuration + plan.restTime;
    this.controls.push(u);
    this.uPrev = u;
    this.executed = plan.controls;
    this.states.push(o.plant.observe());
    const crossed = o.geometry.firstFailure(path);
    return crossed ? this.finish('failure', crossed.failure, crossed.detail) : null;
  }

  private dropPending(): void {
    this.pending?.cancel.abort();
    this.pending = null;
  }

  private finish(
    outcome: RunSummary['outcome'],
    failure: RunSummary['failure'],
    detail: string | null,
  ): RunSummary {
    return {
      outcome,
      failure,
      detail,
      actions: this.controls.length,
      taskTime: this.time,
      planningTimes: this.planningTimes,
      controls: this.controls.map((u) => [...u]),
      states: this.states.map((s) => Array.from(s)),
    };
  }

  private async planNow(
    x: State,
    step: number,
    before: Control = this.uPrev,
    previous: readonly Control[] | undefined = this.executed,
    signal?: AbortSignal,
  ): Promise<{ plan: Plan; planning: number }> {
    const o = this.o;
    const t0 = monotonicSeconds();
    const signals = [o.signal, signal].filter((s): s is AbortSignal => s !== undefined);
    const both = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const plan = await untilAborted(
      o.planner.plan({
        x,
        step,
        uPrev: before,
        ...(previous ? { previous } : {}),
        ...(both ? { signal: both } : {}),
      }),
      o.signal,
    );
    return { plan, planning: monotonicSeconds() - t0 };
  }

  /** A plan for observed state x: the pending one if its prediction held, else a fresh one. */
  private async choosePlan(x: State): Promise<ChosenPlan> {
    const o = this.o;
    const step = this.controls.length;
    const p = this.pending;
    if (!p) {
      const fresh = await this.planNow(x, step);
      return { ...fresh, basis: x, waited: fresh.planning, replan: undefined };
    }
    this.pending = null;
    const basis = await untilAborted(p.basis, o.signal);
    const divergence = stateDivergence(this.L, x, basis);
    // A first plan is confirmed as any plan is before sending; a predicted state within the
    // asynchronous tolerance.
    const arrived = within(divergence, p.beforeLoop ? this.confirm : (this.asyncTolerance ?? this.confirm))
      ? await untilAborted(p.plan, o.signal)
      : null;
    if (arrived) {
      // It started with the control; the arm waits only for what it took beyond control and rest.
      const waited = Math.max(0, arrived.ready - p.overlap);
      return {
        plan: arrived.plan,
        planning: arrived.planning,
        basis,
        waited,
        replan: { divergence, replanned: false },
        ...(p.beforeLoop ? { beforeArming: true } : {}),
      };
    }
    // Dropped unfinished: the fresh plan gets the workers at once instead of queueing behind it.
    p.cancel.abort();
    const fresh = await this.planNow(x, step);
    return {
      ...fresh,
      basis: x,
      waited: fresh.planning,
      replan: { divergence, replanned: true },
      ...(p.beforeLoop ? { beforeArming: false } : {}),
    };
  }
}
