import { describe, expect, it } from 'vitest';
import { type Plan, type Planner } from '../../src-main/planning/planner';
import { approachAndPush } from '../../src-main/planning/fresh-sequences';
import { plannerStepSchema, type PlannerStep } from '#contract/planner-events';
import { initialState, type State, type Control } from '#contract/state';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { MpcPlanner, shiftControls } from '../../src-main/planning/mpc/mpc-planner';
import { runMpc } from '../../src-main/planning/mpc-loop';
import { waypoints } from '../../src-main/planning/push-heading';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import type { Plant } from '../../src-main/planning/plant';
import { Rng } from '../../src-main/common/rng';
import { referenceScene } from '../helpers/scenes';
import { kinematicRollout, kinematicStep } from './toy';

/** A plant that moves the pusher and slider `slider` kinematically. */
class KinematicPlant implements Plant {
  executed: Control[] = [];
  constructor(
    private readonly g: TaskGeometry,
    private x: State,
    private readonly slider = 0,
  ) {}
  observe(): State {
    return Float64Array.from(this.x);
  }
  execute(u: Control, dt: number): Promise<State[]> {
    this.executed.push(u);
    this.x = kinematicStep(this.g.layout, this.x, u, dt, this.slider);
    return Promise.resolve([Float64Array.from(this.x)]);
  }
}

/** A planner that always plans the same straight push. */
function fixedPlanner(u: Control, restTime = 0): Planner {
  return {
    plan: (ctx): Promise<Plan> =>
      Promise.resolve({
        controls: [u, u],
        restTime,
        iterates: [[ctx.x, ctx.x, ctx.x]],
        iterationLabels: [0],
        changes: [],
        costs: [1, 0.5],
        predictionTime: 0.002,
        sequences: 4,
        work: { cpu: 0, steps: 0, solverIterations: 0 },
      }),
  };
}

function loop(
  g: TaskGeometry,
  plant: Plant,
  planner: Planner,
  o: { maxActions?: number; timeLimit?: number } = {},
) {
  const steps: PlannerStep[] = [];
  const run = runMpc({
    plant,
    planner,
    geometry: g,
    controlDuration: 1,
    maxActions: o.maxActions ?? 50,
    timeLimit: o.timeLimit ?? 1e6,
    workers: 1,
    theoreticalSpeedup: null,
    onStep: (s) => steps.push(plannerStepSchema.parse(s)),
  });
  return { run, steps };
}

const isrr = referenceScene('isrr-obstacle');
const cvs = referenceScene('cvs-multi-object');

describe('MPC loop', () => {
  it('warm start drops the executed control and repeats the last one', () => {
    expect(
      shiftControls([
        [1, 2],
        [3, 4],
        [5, 6],
      ]),
    ).toEqual([
      [3, 4],
      [5, 6],
      [5, 6],
    ]);
    expect(shiftControls([[1, 1]])).toEqual([[1, 1]]);
  });

  it('the MPC planner starts the next optimization from the shifted plan', async () => {
    const g = new TaskGeometry(isrr);
    const seen: Control[][][] = [];
    const options = {
      geometry: g,
      rollout: kinematicRollout(g.layout, 1, seen),
      cost: new TrajectoryCost([{ term: 'goal-distance', weight: 100 }], g),
      rng: new Rng(2),
      optimizer: {
        rollouts: 5,
        explorationVariance: 1e-4,
        update: { kind: 'greedy' as const },
        maxIterations: 2,
        costThreshold: 0,
        maxSpeed: 0.1,
      },
      horizon: 4,
      initialSpeed: 0.03,
      obstacleClearance: 0.03,
      controlDuration: 1,
      iterationLabels: (n: number) => Array.from({ length: n }, (_, k) => k),
    };
    const planner = new MpcPlanner(options);
    const x = initialState(isrr);
    const first = await planner.plan({ x, step: 0, uPrev: [0, 0] });
    expect(seen[0]![0]).toEqual(Array.from({ length: 4 }, () => [0.03, 0])); // straight to the goal
    const before = seen.length;
    // The plan's work: every sequence its batches predicted.
    expect(first.sequences).toBe(seen.reduce((n, batch) => n + batch.length, 0));
    await planner.plan({ x, step: 1, uPrev: first.controls[0]!, previous: first.controls });
    // (To the last bit but for the speed cap's rescaling of full-speed controls.)
    const sameControls = (a: Control[], b: Control[]): void =>
      a.forEach((u, i) => u.forEach((v, j) => expect(v).toBeCloseTo(b[i]![j]!, 15)));
    sameControls(seen[before]![0]!, shiftControls(first.controls));
    // The warm start is the plan the caller names, not whatever the planner planned last: a third
    // call naming the first plan again (its successor was dropped) starts from it, not the second.
    const again = seen.length;
    await planner.plan({ x, step: 1, uPrev: first.controls[0]!, previous: first.controls });
    sameControls(seen[again]![0]!, shiftControls(first.controls));
    // Beside the warm start, fresh approach-and-push sequences around either side of the obstacle
    // are weighed, slow and at full speed.
    const [left, right] = waypoints(g, x, 0.03);
    expect(seen[before]!.slice(1, 5)).toEqual([
      approachAndPush(g, x, 4, 0.03, 1, left),
      approachAndPush(g, x, 4, 0.1, 1, left),
      approachAndPush(g, x, 4, 0.03, 1, right),
      approachAndPush(g, x, 4, 0.1, 1, right),
    ]);
    // With the full speed equal to the initial one (WAFR's standard MPC), each side is weighed once.
    const quasiStatic = new MpcPlanner({ ...options, fastSpeed: 0.03 });
    const quasiSeen = seen.length;
    await quasiStatic.plan({ x, step: 1, uPrev: first.controls[0]!, previous: first.controls });
    expect(seen[quasiSeen]!.slice(1, 3)).toEqual([
      approachAndPush(g, x, 4, 0.03, 1, left),
      approachAndPush(g, x, 4, 0.03, 1, right),
    ]);
    expect(seen[quasiSeen]!.length).toBe(seen[before]!.length - 2);
    // The last iteration's noisy rollouts come back as traces for the live view: 5 sequences, x0..x4.
    expect(first.rollouts).toHaveLength(5);
    expect(first.rollouts!.every((t) => t.length === 5)).toBe(true);
  });

  it('routes the object around the obstacle in its way, on either side, and straight when none is', () => {
    const g = new TaskGeometry(isrr);
    const x = initialState(isrr); // object, obstacle and goal on the x axis
    const points = waypoints(g, x, 0.03);
    expect(points).toHaveLength(2);
    const o = g.obstacles[0]!;
    const rs = isrr.sliders[0]!.shape.kind === 'cylinder' ? isrr.sliders[0]!.shape.radius : 0;
    const ro = o.footprint.kind === 'disc' ? o.footprint.radius : 0;
    for (const p of points) expect(Math.hypot(p.x - o.x, p.y - o.y)).toBeCloseTo(ro + rs + 0.045, 12);
    expect(points[0]!.y * points[1]!.y).toBeLessThan(0); // one on each side
    // Moved 0.35 m sideways the object has a clear way: head straight for the goal.
    const aside = Float64Array.from(x);
    g.layout.setSlider(aside, 0, { ...g.layout.sliderPose(x, 0), y: 0.35 });
    expect(waypoints(g, aside, 0.03)).toEqual([g.goal]);
  });

  it('approach-and-push goes round the object, not through it, when the pusher is ahead of it', () => {
    const g = new TaskGeometry({ ...isrr, obstacles: [] });
    const x = initialState(isrr);
    const s = g.layout.sliderPose(x, 0);
    g.layout.setPusher(x, s.x + 0.09, s.y + 0.005); // between the object and the goal
    const reach = 0.05115 + 0.0145;
    const u = approachAndPush(g, x, 14, 0.05, 1);
    const firstPush = u.findIndex((c) => c[0] === 0.05 && c[1] === 0);
    expect(firstPush).toBeGreaterThan(0); // it gets behind the object within the horizon
    let [px, py] = [x[0]!, x[1]!];
    for (const c of u.slice(0, firstPush)) {
      // Every point of each move, not only its ends, stays outside the contact distance.
      for (let f = 0.1; f <= 1; f += 0.1)
        expect(Math.hypot(px + f * c[0]! - s.x, py + f * c[1]! - s.y)).toBeGreaterThan(reach - 1e-3);
      px += c[0]!;
      py += c[1]!;
    }
  });

  it('approach-and-push heads behind the object, then pushes it towards the goal', () => {
    const g = new TaskGeometry({ ...isrr, obstacles: [] });
    const x = initialState(isrr);
    // Pusher 10 cm to the side of the object: first move round behind it, then push along +x.
    g.layout.setPusher(x, g.layout.sliderPose(x, 0).x, 0.1);
    const u = approachAndPush(g, x, 8, 0.05, 1);
    expect(u[0]![0]).toBeLessThan(0);
    expect(u.slice(6)).toEqual([
      [0.05, 0],
      [0.05, 0],
    ]);
  });

  it('stops with success once the goal object is in the goal region, emitting one event per action', async () => {
    const scene = { ...isrr, obstacles: [] };
    const g = new TaskGeometry(scene);
    const { run, steps } = loop(g, new KinematicPlant(g, initialState(scene)), fixedPlanner([0.1, 0]));
    const r = await run;
    expect(r.outcome).toBe('success');
    // From x = -0.22 to within 0.05 of 0.22: 4 pushes of 0.1 m.
    expect(r.actions).toBe(4);
    expect(steps.map((s) => s.step)).toEqual([0, 1, 2, 3]);
    expect(steps[0]!.plan).toEqual([
      [0.1, 0],
      [0.1, 0],
    ]);
    expect(r.states).toHaveLength(5);
    expect(r.taskTime).toBeGreaterThanOrEqual(4);
  });

  it('fails on a collision with the obstacle', async () => {
    const g = new TaskGeometry(isrr);
    const r = await loop(g, new KinematicPlant(g, initialState(isrr)), fixedPlanner([0.1, 0])).run;
    expect(r.outcome).toBe('failure');
    expect(r.failure).toBe('obstacle-collision');
    expect(r.detail).toContain('obstacle');
  });

  it('fails when an object leaves the table', async () => {
    const scene = { ...isrr, obstacles: [] };
    const g = new TaskGeometry(scene);
    const r = await loop(g, new KinematicPlant(g, initialState(scene)), fixedPlanner([0, 0.1])).run;
    expect(r.failure).toBe('off-table');
    // Half the table is 0.4 m: the centre is exactly on the edge after 4 pushes and off it after 5.
    expect(r.actions).toBe(5);
  });

  it('fails when a non-goal object enters the goal region', async () => {
    const g = new TaskGeometry(cvs);
    const x = initialState(cvs);
    // Drive other1 (index 1) towards the goal at (0.22, 0) from (-0.02, 0.07).
    const r = await loop(g, new KinematicPlant(g, x, 1), fixedPlanner([0.08, -0.0233])).run;
    expect(r.failure).toBe('non-goal-in-goal');
    expect(r.detail).toContain('other1');
  });

  it('stops at the action limit and at the time limit', async () => {
    const g = new TaskGeometry(isrr);
    const idle = fixedPlanner([0, 0]);
    const byActions = await loop(g, new KinematicPlant(g, initialState(isrr)), idle, { maxActions: 3 }).run;
    expect(byActions.outcome).toBe('action-limit');
    expect(byActions.actions).toBe(3);
    // Each action takes 1 s of control plus 1 s of rest: a 5 s limit allows 3 actions.
    const resting = fixedPlanner([0, 0], 1);
    const byTime = await loop(g, new KinematicPlant(g, initialState(isrr)), resting, { timeLimit: 5 }).run;
    expect(byTime.outcome).toBe('time-limit');
    expect(byTime.actions).toBe(3);
  });
});
