/**
 * Asynchronous MPC with every planner kind on the shipped tasks (mpc-loop.ts, planners.ts): the
 * next step is planned while the current control (and, for TAMPC and UAMPC, its rest) executes,
 * from the state the plan predicts at the end of that control and rest, and the arm goes on
 * without waiting for a plan. Time here is the order of events, not the wall clock: the plant
 * finishes a control only once the planner has nothing in progress (a plan that fits in its
 * control), and the test checks what was asked when.
 */
import path from 'node:path';
import { type PlanContext, type Planner } from '../../src-main/planning/planner';
import { type Control } from '#contract/state';
import { describe, expect, it } from 'vitest';
import type { Scene } from '#contract/scene';
import type { State } from '#contract/state';
import { plannerStepSchema, type PlannerStep } from '#contract/planner-events';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { deriveSeed, Rng } from '../../src-main/common/rng';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { runMpc, type MpcLoopOptions } from '../../src-main/planning/mpc-loop';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import type { Plant } from '../../src-main/planning/plant';
import { planners, type PlannerKind } from '../../src-main/planning/planners';
import { loadTaskFile, type Task } from '../../src-main/planning/task-file';
import { loopMode, optimizerSettings } from '../../src-main/planning/task-run';
import { repoRoot } from '../helpers/scenes';
import { kinematicRollout, kinematicStep } from './toy';

/** How far every object slides during a rest (m, along x): the rest is visible in the states. */
const REST_SLIDE = 0.0005;

function settled(scene: Scene, x: State): State {
  const g = new TaskGeometry(scene);
  const out = Float64Array.from(x);
  for (let i = 0; i < scene.sliders.length; i++) out[g.layout.posOffset(i)]! += REST_SLIDE;
  return out;
}

/** Records every plan asked for and tells when none is in progress. */
class WatchedPlanner implements Planner {
  readonly asked: PlanContext[] = [];
  readonly settled: State[] = [];
  private inProgress = new Set<Promise<unknown>>();
  readonly settle?: Planner['settle'];
  constructor(private readonly inner: Planner) {
    if (inner.settle)
      this.settle = async (x, restTime, signal) => {
        const s = await inner.settle!(x, restTime, signal);
        this.settled.push(s);
        return s;
      };
  }
  plan(ctx: PlanContext) {
    this.asked.push(ctx);
    const p = this.inner.plan(ctx);
    this.inProgress.add(p);
    const done = () => this.inProgress.delete(p);
    p.then(done, done);
    return p;
  }
  /** Resolves once no plan is in progress. */
  async idle(): Promise<void> {
    while (this.inProgress.size > 0) await Promise.allSettled([...this.inProgress]);
  }
}

/**
 * The table as the kinematic toy predicts it (pusher and goal object move with the control,
 * objects slide REST_SLIDE during a rest), so predictions hold. A control ends only once the
 * planner is idle: every plan fits within the control that overlaps it.
 */
class ToyPlant implements Plant {
  /** Each execution and how many plans had been asked for when it started and when it ended. */
  readonly executed: { u: Control; dt: number; askedAtStart: number; askedAtEnd: number }[] = [];
  constructor(
    private x: State,
    private readonly scene: Scene,
    private readonly planner: WatchedPlanner,
  ) {}
  observe(): State {
    return Float64Array.from(this.x);
  }
  async execute(u: Control, dt: number): Promise<State[]> {
    const askedAtStart = this.planner.asked.length;
    const L = new TaskGeometry(this.scene).layout;
    const rest = u.every((v) => v === 0);
    this.x = rest ? settled(this.scene, this.x) : kinematicStep(L, this.x, u, dt);
    // The loop starts the next plan once the predicted rest is known: let it, then let it finish.
    await new Promise<void>((r) => setImmediate(r));
    await this.planner.idle();
    this.executed.push({ u, dt, askedAtStart, askedAtEnd: this.planner.asked.length });
    return [this.observe()];
  }
}

function setup(taskName: string, kind: PlannerKind) {
  const { task: loaded, scene: taskScene } = loadTaskFile(
    path.join(repoRoot, 'resources/tasks', `${taskName}.json`),
  );
  const task: Task = { ...loaded, planner: { ...loaded.planner, kind, loopMode: 'asynchronous' } };
  const { scene, x0 } = sampleScene(taskScene, task.sampling, deriveSeed(sceneSeed(1, 0), 'start'));
  const geometry = new TaskGeometry(scene);
  const L = geometry.layout;
  const dt = task.planner.controlDuration;
  const inner = planners[kind].create({
    task,
    scene,
    geometry,
    rollout: kinematicRollout(L, dt),
    cost: new TrajectoryCost(task.costs, geometry),
    rng: new Rng(3),
    // Slow enough that no goal is reached within the test's actions.
    optimizer: { ...optimizerSettings(task, scene), maxSpeed: 0.02 },
    iterationLabels: () => [task.planner.horizon],
    sampler: () => (requests) =>
      Promise.resolve(requests.map((r) => settled(scene, kinematicStep(L, r.x0, r.u, r.dt)))),
    settle: () => (x) => Promise.resolve(settled(scene, x)),
  });
  const planner = new WatchedPlanner(inner);
  const plant = new ToyPlant(x0, scene, planner);
  return { task, scene, geometry, planner, plant, x0 };
}

/** The loop's options for a set-up: its plant, planner and task, at most `maxActions` actions, no time limit. */
function loopOptions(s: ReturnType<typeof setup>, maxActions: number): MpcLoopOptions {
  return {
    plant: s.plant,
    planner: s.planner,
    geometry: s.geometry,
    controlDuration: s.task.planner.controlDuration,
    maxActions,
    timeLimit: 1e6,
    workers: 1,
    theoreticalSpeedup: null,
    ...loopMode(s.task),
  };
}

// Every shipped task with the planner it ships with, and each other planner kind on a pushing
// and on the gripper task.
const cases: [string, PlannerKind][] = [
  ['isrr-obstacle', 'mpc'],
  ['cvs-multi-object', 'mpc'],
  ['wafr-high-accuracy', 'tampc'],
  ['wafr-low-accuracy', 'tampc'],
  ['wafr-changing', 'tampc'],
  ['wafr-l-shape', 'tampc'],
  ['wafr-high-accuracy', 'uampc'],
  ['wafr-high-accuracy', 'mpc'],
  ['wafr-clutter', 'tampc'],
  ['wafr-clutter', 'mpc'],
  ['wafr-clutter', 'uampc'],
];

describe('asynchronous MPC with every planner kind', () => {
  it.each(cases)(
    '%s with %s: plans step n+1 during control n from its predicted end, and the arm does not wait',
    async (taskName, kind) => {
      const set = setup(taskName, kind);
      const { task, planner, plant } = set;
      const steps: PlannerStep[] = [];
      const actions = 4;
      const summary = await runMpc({
        ...loopOptions(set, actions),
        onStep: (s) => steps.push(plannerStepSchema.parse(s)),
      });
      // The toy does not reach any goal in 4 actions; an early end would leave nothing to check.
      expect(summary.outcome).toBe('action-limit');
      const rest = kind === 'mpc' ? 0 : task.planner.tampc.restTime;
      expect(rest > 0).toBe(kind !== 'mpc');
      // One plan per step, none made again: every prediction held.
      expect(planner.asked).toHaveLength(actions);
      const controls = plant.executed.filter((e) => e.dt === task.planner.controlDuration);
      expect(controls).toHaveLength(actions);
      expect(plant.executed).toHaveLength(actions * (rest > 0 ? 2 : 1));
      // Nothing was planned between two executions: the arm never waited for a plan.
      for (let i = 1; i < plant.executed.length; i++)
        expect(plant.executed[i]!.askedAtStart).toBe(plant.executed[i - 1]!.askedAtEnd);
      for (let n = 0; n + 1 < actions; n++) {
        const next = planner.asked[n + 1]!;
        expect(next.step).toBe(n + 1);
        // Asked while control n executed.
        expect(controls[n]!.askedAtStart).toBe(n + 1);
        expect(controls[n]!.askedAtEnd).toBe(n + 2);
        // From the state plan n predicts at the end of control n, after its rest.
        const end = Float64Array.from(steps[n]!.predictions.at(-1)!.states[1]!);
        const expected = rest > 0 ? settled(plant['scene'], end) : end;
        expect(Array.from(next.x)).toEqual(Array.from(expected));
        if (rest > 0) expect(next.x).toEqual(planner.settled[n]);
        // Warm-started from plan n, the one that ran.
        expect(next.previous).toEqual(steps[n]!.plan);
        // The plan kept, not made again after control n: nothing was asked between controls.
        expect(steps[n + 1]!.replan).toEqual({ divergence: expect.anything(), replanned: false });
        expect(controls[n + 1]!.u).toEqual(steps[n + 1]!.plan[0]);
      }
      // No plan was started for a step after the last.
      expect(planner.asked.every((c) => c.step < actions)).toBe(true);
    },
  );

  it('TAMPC carries the rest of the plan that ran, not of a dropped plan for a predicted state', async () => {
    const set = setup('wafr-high-accuracy', 'tampc');
    const { geometry, planner, plant } = set;
    // The world slides every object 20 mm more than predicted in each rest: every pending plan is dropped.
    const execute = plant.execute.bind(plant);
    plant.execute = async (u, dt) => {
      const path = await execute(u, dt);
      if (u.every((v) => v === 0)) {
        const x = plant.observe();
        x[geometry.layout.posOffset(0)]! += 0.02;
        plant['x'] = x;
      }
      return path;
    };
    const steps: PlannerStep[] = [];
    await runMpc({ ...loopOptions(set, 3), onStep: (s) => steps.push(plannerStepSchema.parse(s)) });
    expect(steps.slice(1).every((s) => s.replan?.replanned === true)).toBe(true);
    // Each replacement plan is told which plan ran before it: the one executed, not the dropped one.
    const replacements = planner.asked.filter((c) => !c.signal);
    expect(replacements.map((c) => c.step)).toEqual([0, 1, 2]);
    for (const c of replacements.slice(1)) expect(c.previous).toEqual(steps[c.step - 1]!.plan);
  });
});

describe('asynchronous MPC and the gripper reflex', () => {
  it('makes no plan for a predicted state that calls for the reflex', async () => {
    const set = setup('wafr-clutter', 'tampc');
    const { task, planner, plant } = set;
    // Here the reflex acts on any state whose gripper has moved from the start (and moves nothing
    // itself): step 0 is planned, and the state it predicts, where the reflex will act, is not.
    const x0 = plant.observe();
    const summary = await runMpc({
      ...loopOptions(set, 3),
      reflex: (x) => (x[0] === x0[0] && x[1] === x0[1] ? null : { u: [0, 0, 0, -0.01], duration: 0.5 }),
    });
    expect(summary.actions).toBe(3);
    expect(planner.asked.map((c) => c.step)).toEqual([0]);
    expect(plant.executed.map((e) => e.dt)).toEqual([
      task.planner.controlDuration,
      task.planner.tampc.restTime,
      0.5,
      0.5,
    ]);
  });
});
