/**
 * Why cvs-multi-object carries the running goal-progress term. A fresh approach-and-push from a
 * pusher a few millimetres short of its pre-push point spends its first 1 s control closing the
 * gap and pushes at full speed after it. With the terminal goal cost alone that beat pushing now
 * (a 4 s push overshoots the goal), and a receding horizon executed the approach, and only the
 * approach, again and again: in scenes 5 and 22 of the first 30-layout experiment the arm held
 * still for 10-12 actions with a clear way to the goal. Predicted with the task's own fine-model
 * settings and costs.
 */
import path from 'node:path';
import { approachAndPush, straightToGoal } from '../../src-main/planning/fresh-sequences';
import { describe, expect, it } from 'vitest';
import { FineModel } from '#physics/fine-model';
import { initialState, type State, type Control } from '#contract/state';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { prePushPoint } from '../../src-main/planning/push-heading';
import { repoRoot } from '../helpers/scenes';

const { task, scene } = loadTaskFile(path.join(repoRoot, 'resources/tasks/cvs-multi-object.json'));
const g = new TaskGeometry(scene);
const L = g.layout;
const { horizon, controlDuration: dt } = task.planner;

/** The goal object 0.27 m from the goal with a clear way, the pusher 3 mm short of its pre-push point. */
function start(): State {
  const x = initialState(scene);
  L.setSlider(x, g.goalIndex, { x: -0.047, y: -0.033, theta: 0 });
  const others = scene.sliders.map((_, i) => i).filter((i) => i !== g.goalIndex);
  others.forEach((i, k) =>
    L.setSlider(x, i, { x: -0.07 + 0.17 * k, y: k === 0 ? -0.19 : 0.13 + 0.02 * k, theta: 0 }),
  );
  const { behind, direction } = prePushPoint(g, x);
  L.setPusher(x, behind.x - 0.003 * direction[0], behind.y - 0.003 * direction[1]);
  return x;
}

async function costs(terms: typeof task.costs, sequences: Control[][]): Promise<number[]> {
  const fine = await FineModel.create({ ...scene, fine: task.planner.prediction });
  try {
    const cost = new TrajectoryCost(terms, g);
    const x0 = start();
    return sequences.map((us) => {
      const xs = [x0];
      for (const u of us) xs.push(fine.step(xs[xs.length - 1]!, u, dt));
      return cost.evaluate(xs, us, [0, 0]).reduce((a, b) => a + b, 0);
    });
  } finally {
    fine.dispose();
  }
}

describe('cvs-multi-object: pushing now against approaching first', () => {
  const x0 = start();
  const approachFirst = approachAndPush(g, x0, horizon, 0.1, dt);
  const pushNow = straightToGoal(g, x0, horizon, 0.08);

  it('the fresh candidate spends its first control on the few millimetres of approach', () => {
    expect(Math.hypot(...(approachFirst[0] as [number, number]))).toBeLessThan(0.005);
    expect(Math.hypot(...(approachFirst[1] as [number, number]))).toBeCloseTo(0.1, 6);
  });

  it('costs less pushing now with the shipped terms, and more without goal-progress', async () => {
    expect(task.costs.some((c) => c.term === 'goal-progress')).toBe(true);
    const [now, later] = await costs(task.costs, [pushNow, approachFirst]);
    expect(now).toBeLessThan(later!);
    const terminalOnly = task.costs.filter((c) => c.term !== 'goal-progress');
    const [nowT, laterT] = await costs(terminalOnly, [pushNow, approachFirst]);
    expect(nowT).toBeGreaterThan(laterT!);
  });
});
