/**
 * What the planner does about the other sliders of a multi-object scene (cvs-multi-object): the
 * fresh candidates' heading round one in the goal object's way, and the goal-keep-out cost of
 * pushing one towards the goal region.
 */
import { describe, expect, it } from 'vitest';
import { initialState, type State } from '#contract/state';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { waypoints } from '../../src-main/planning/push-heading';
import { footprintReach } from '#physics/geometry2d';
import { referenceScene } from '../helpers/scenes';

const cvs = referenceScene('cvs-multi-object');
const g = new TaskGeometry(cvs);
const L = g.layout;
const other = (id: string) => L.sliderIndex(id);
const reach = footprintReach(g.sliders[g.goalIndex]!);

/** The goal object at (-0.2, 0) on the goal's line; other1 at `at`, the rest far aside on the table. */
function layout(at: { x: number; y: number }): State {
  const x = initialState(cvs);
  L.setSlider(x, g.goalIndex, { x: -0.2, y: 0, theta: 0 });
  L.setSlider(x, other('other1'), { ...at, theta: 0 });
  L.setSlider(x, other('other2'), { x: -0.3, y: -0.22, theta: 0 });
  L.setSlider(x, other('other3'), { x: -0.3, y: 0.22, theta: 0 });
  L.setPusher(x, -0.27, 0);
  return x;
}

describe('multi-object pushing', () => {
  it('heads the goal object round another slider in its way, on either side', () => {
    const x = layout({ x: 0, y: 0.01 });
    const points = waypoints(g, x, 0.02);
    expect(points).toHaveLength(2);
    // Tangent points of the slider's disc (both reaches, the clearance and half again).
    const r = reach + footprintReach(g.sliders[other('other1')]!) + 0.03;
    for (const p of points) expect(Math.hypot(p.x - 0, p.y - 0.01)).toBeCloseTo(r, 12);
    expect((points[0]!.y - 0.01) * (points[1]!.y - 0.01)).toBeLessThan(0);
  });

  it('heads straight for the goal when the way is clear or no way round ends at the goal centre', () => {
    expect(waypoints(g, layout({ x: 0, y: 0.2 }), 0.02)).toEqual([g.goal]);
    // 0.12 m from the goal centre, inside the 0.122 m disc: the sampled pushes deal with it.
    expect(waypoints(g, layout({ x: g.goal.x - 0.12, y: 0 }), 0.02)).toEqual([g.goal]);
  });

  it('goal-keep-out charges another slider nearing the goal region, more the nearer, and not the goal object', () => {
    const cost = new TrajectoryCost([{ term: 'goal-keep-out', weight: 10, margin: 0.08 }], g);
    const at = (d: number, moveGoalObject = false): number => {
      const x = layout({ x: 0, y: 0.25 });
      const y = Float64Array.from(x);
      if (moveGoalObject) L.setSlider(y, g.goalIndex, { x: g.goal.x - d, y: 0, theta: 0 });
      else L.setSlider(y, other('other1'), { x: g.goal.x - d, y: 0, theta: 0 });
      return cost.evaluate([x, y], [[0, 0]], [0, 0])[0]!;
    };
    const edge = g.goal.radius;
    expect(at(edge + 0.09)).toBe(0);
    expect(at(edge + 0.04)).toBeCloseTo(10 * 0.5 ** 2, 12);
    expect(at(edge + 0.02)).toBeGreaterThan(at(edge + 0.04));
    expect(at(edge)).toBeCloseTo(10, 12);
    expect(at(edge - 0.03)).toBeCloseTo(10, 12);
    expect(at(0.05, true)).toBe(0);
  });
});
