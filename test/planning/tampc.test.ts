import path from 'node:path';
import { type StochasticSampler } from '../../src-main/planning/planner';
import { describe, expect, it } from 'vitest';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { initialState, type State, type Control } from '#contract/state';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { deriveSeed, Rng } from '../../src-main/common/rng';
import { candidateSequences, TampcPlanner } from '../../src-main/planning/tampc/tampc-planner';
import { prePushPoint } from '../../src-main/planning/push-heading';
import { referenceScene, repoRoot } from '../helpers/scenes';
import { kinematicRollout, kinematicStep } from './toy';

// The narrow strip (0.16 m wide): the object must travel 0.4 m to a 3 cm goal.
const scene = referenceScene('wafr-narrow-strip');
const g = new TaskGeometry(scene);
const cost = new TrajectoryCost(
  [
    { term: 'action', cost: 0.05 },
    { term: 'failure', weight: 50 },
    { term: 'goal-region', weight: 100 },
  ],
  g,
);

/** Stochastic execution: the push as planned plus sideways spread proportional to speed (b * |u|). */
function spreadingSampler(b: number): StochasticSampler {
  const one = (x0: State, u: Control, dt: number, seed: number): State => {
    const next = kinematicStep(g.layout, x0, u, dt);
    const o = g.layout.posOffset(0);
    next[o + 1] = next[o + 1]! + b * Math.hypot(u[0]!, u[1]!) * new Rng(seed).normal();
    return next;
  };
  return (requests) => Promise.resolve(requests.map((r) => one(r.x0, r.u, r.dt, r.seed)));
}

function planner(b: number): TampcPlanner {
  return new TampcPlanner({
    geometry: g,
    rollout: kinematicRollout(g.layout),
    cost,
    sampler: spreadingSampler(b),
    rng: new Rng(5),
    optimizer: {
      rollouts: 4,
      explorationVariance: 1e-6,
      update: { kind: 'greedy' },
      maxIterations: 0,
      costThreshold: 0,
      maxSpeed: 1,
    },
    controlDuration: 1,
    candidates: 2,
    minActions: 1,
    maxActions: 4,
    samples: 12,
    restTime: 0.5,
    iterationLabels: () => [0],
  });
}

describe('task-adaptive MPC (WAFR 2018 Alg. 1-3)', () => {
  const x = initialState(scene);
  /** Three candidates of 1, 3 and 5 one-second controls. */
  const oneToFive = { candidates: 3, minActions: 1, maxActions: 5, controlDuration: 1, maxSpeed: 1 };

  it('generates straight candidates from n_min to n_max controls that all reach the goal', () => {
    const c = candidateSequences(g, x, oneToFive);
    expect(c.map((s) => s.length)).toEqual([1, 3, 5]);
    for (const seq of c) expect(seq.reduce((a, u) => a + u[0]!, 0)).toBeCloseTo(0.4, 12);
  });

  it('walks a pusher that ended past the object back behind it before pushing', () => {
    // After a fast push the object slid off sideways and the pusher ran on past it: the straight
    // candidates' velocities would carry the pusher away from the object for good.
    const past = x.slice();
    const object = g.layout.sliderPose(x, 0);
    g.layout.setPusher(past, object.x + 0.05, object.y + 0.04);
    const c = candidateSequences(g, past, oneToFive);
    expect(c.map((s) => s.length)).toEqual([1, 3, 5]);
    const { behind } = prePushPoint(g, past);
    const [px, py] = g.layout.pusherPosition(past);
    for (const seq of c) {
      // The first control heads back (against the push direction, +x here), not on to the goal.
      expect(seq[0]![0]).toBeLessThan(0);
      // The longest candidate gets round the object to the pre-push point.
      const end = seq.reduce<[number, number]>((a, u) => [a[0] + u[0]!, a[1] + u[1]!], [px, py]);
      if (seq.length === 5) expect(Math.hypot(end[0] - behind.x, end[1] - behind.y)).toBeLessThan(1e-9);
    }
    // In position (the scene's start), the candidates stay the straight pushes.
    const straight = candidateSequences(g, x, oneToFive);
    for (const seq of straight) expect(new Set(seq.map((u) => u.join())).size).toBe(1);
  });

  it('picks the slow push when the fast push samples fall off the strip', async () => {
    const p = planner(0.2);
    const plan = await p.plan({ x, step: 0, uPrev: [0, 0] });
    expect(plan.controls).toHaveLength(4);
    expect(plan.controls[0]![0]).toBeCloseTo(0.1, 9);
    const [fast, slow] = p.lastEvaluations;
    expect(fast!.value).toBeGreaterThan(slow!.value);
    expect(plan.restTime).toBe(0.5);
  });

  it('picks the fast push when execution is certain', async () => {
    const p = planner(0);
    const plan = await p.plan({ x, step: 0, uPrev: [0, 0] });
    expect(plan.controls).toHaveLength(1);
    expect(plan.controls[0]![0]).toBeCloseTo(0.4, 9);
  });

  it('offers the rest of the chosen sequence as a candidate next step', async () => {
    const p = planner(0.2);
    const first = await p.plan({ x, step: 0, uPrev: [0, 0] });
    const next = kinematicStep(g.layout, x, first.controls[0]!, 1);
    await p.plan({ x: next, step: 1, uPrev: first.controls[0]! });
    const carried = p.lastEvaluations[p.lastEvaluations.length - 1]!.optimized.controls;
    expect(carried).toEqual(first.controls.slice(1));
  });

  it('carries the plan the caller says ran, not one made since for a predicted state (asynchronous MPC)', async () => {
    const p = planner(0.2);
    const ran = await p.plan({ x, step: 0, uPrev: [0, 0] });
    const next = kinematicStep(g.layout, x, ran.controls[0]!, 1);
    // A plan for step 1 from a predicted state, dropped (withdrawn) once the observation differed.
    const withdrawn = new AbortController();
    await p.plan({
      x: next,
      step: 1,
      uPrev: ran.controls[0]!,
      previous: ran.controls,
      signal: withdrawn.signal,
    });
    withdrawn.abort();
    await p.plan({ x: next, step: 1, uPrev: ran.controls[0]!, previous: ran.controls });
    expect(p.lastEvaluations.at(-1)!.optimized.controls).toEqual(ran.controls.slice(1));
  });

  it('after an action without a plan, carries the last plan that was not withdrawn', async () => {
    const p = planner(0.2);
    const ran = await p.plan({ x, step: 0, uPrev: [0, 0] });
    const withdrawn = new AbortController();
    const dropped = await p.plan({ x, step: 1, uPrev: ran.controls[0]!, signal: withdrawn.signal });
    withdrawn.abort();
    // Step 2 follows the gripper's reflex: no previous plan named.
    await p.plan({ x, step: 2, uPrev: [0, 0] });
    const carried = p.lastEvaluations.at(-1)!.optimized.controls;
    expect(ran.controls.length).toBeGreaterThan(1);
    expect(carried).toEqual(ran.controls.slice(1));
    expect(carried).not.toEqual(dropped.controls.slice(1));
  });
});

describe('TAMPC on the WAFR tasks (Sec. 7: fast pushes of one or two actions)', () => {
  const tasks = ['wafr-low-accuracy', 'wafr-high-accuracy'].map((name) =>
    loadTaskFile(path.join(repoRoot, 'resources/tasks', `${name}.json`)),
  );

  it.each(tasks.map((t) => [t.task.name, t] as const))(
    '%s: a 1-2 action push to the goal is a candidate within the speed limit; UAMPC only slow ones',
    (_name, { task, scene: taskScene }) => {
      const t = task.planner.tampc;
      for (let i = 0; i < 20; i++) {
        const { scene, x0 } = sampleScene(taskScene, task.sampling, deriveSeed(sceneSeed(1, i), 'start'));
        const geometry = new TaskGeometry(scene);
        const settings = {
          candidates: t.candidates,
          maxActions: t.maxActions,
          controlDuration: task.planner.controlDuration,
          maxSpeed: scene.limits.maxPusherSpeed,
        };
        const p = geometry.layout.sliderPose(x0, geometry.goalIndex);
        const toGoal = Math.hypot(geometry.goal.x - p.x, geometry.goal.y - p.y);
        const reach = (seq: Control[]) => seq.reduce((a, u) => a + Math.hypot(u[0]!, u[1]!), 0);
        const tampc = candidateSequences(geometry, x0, { ...settings, minActions: t.minActions });
        const fast = tampc.filter((seq) => seq.length <= 2);
        expect(fast.length).toBeGreaterThan(0);
        for (const seq of fast) {
          // Not clamped: the push covers the whole way to the goal centre within the limit.
          expect(reach(seq) * task.planner.controlDuration).toBeCloseTo(toGoal, 9);
          expect(Math.hypot(...seq[0]!)).toBeLessThanOrEqual(scene.limits.maxPusherSpeed);
          expect(Math.hypot(...seq[0]!)).toBeGreaterThan(0.3);
        }
        const uampc = candidateSequences(geometry, x0, { ...settings, minActions: t.maxActions });
        for (const seq of uampc) {
          expect(seq).toHaveLength(t.maxActions);
          expect(Math.hypot(...seq[0]!)).toBeLessThan(0.06);
        }
      }
    },
  );
});
