import { describe, expect, it } from 'vitest';
import { firstInTheWay, tangentPoints, wayRoundLength } from '../../src-main/planning/way-round';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { buildCostTerm } from '../../src-main/planning/costs/cost-terms';
import { waypoints } from '../../src-main/planning/push-heading';
import { initialState } from '#contract/state';
import { referenceScene } from '../helpers/scenes';

const disc = { x: 0, y: 0, r: 1 };

describe('the way round discs', () => {
  it('is the straight distance when nothing is in the way', () => {
    expect(wayRoundLength({ x: -2, y: 2 }, { x: 2, y: 2 }, [disc])).toBeCloseTo(4, 12);
    expect(wayRoundLength({ x: -2, y: 0 }, { x: 2, y: 0 }, [])).toBeCloseTo(4, 12);
  });

  it('goes tangent, arc, tangent round a disc in the way', () => {
    // From (-2, 0) to (2, 0) round the unit disc: two tangents of sqrt(3) and an arc of pi / 3.
    expect(wayRoundLength({ x: -2, y: 0 }, { x: 2, y: 0 }, [disc])).toBeCloseTo(
      2 * Math.sqrt(3) + Math.PI / 3,
      12,
    );
    // Grazing the rim, the way round is the straight line.
    expect(wayRoundLength({ x: -2, y: 1 }, { x: 2, y: 1 }, [disc])).toBeCloseTo(4, 6);
  });

  it('shortens with every step along the rim, where the straight distance grows', () => {
    const goal = { x: 3, y: 0 };
    const along = [Math.PI, 1.25 * Math.PI, 1.4 * Math.PI].map((a) => ({
      x: 1.01 * Math.cos(a),
      y: 1.01 * Math.sin(a),
    }));
    const round = along.map((p) => wayRoundLength(p, goal, [disc]));
    const straight = along.map((p) => Math.hypot(goal.x - p.x, goal.y - p.y));
    expect(round[1]!).toBeLessThan(round[0]!);
    expect(round[2]!).toBeLessThan(round[1]!);
    expect(straight[1]!).toBeLessThan(straight[0]!);
    // The straight distance barely moves along the near side: the hollow the planner sat in.
    expect(straight[0]! - straight[1]!).toBeLessThan((round[0]! - round[1]!) / 2);
  });

  it('is continuous into the disc, where a point counts as on the rim', () => {
    const inside = wayRoundLength({ x: -0.999, y: 0 }, { x: 2, y: 0 }, [disc]);
    const outside = wayRoundLength({ x: -1.001, y: 0 }, { x: 2, y: 0 }, [disc]);
    expect(Math.abs(inside - outside)).toBeLessThan(0.01);
  });

  it('takes the longest single detour when several discs are in the way', () => {
    const far = { x: 4, y: 0, r: 0.5 };
    const both = wayRoundLength({ x: -2, y: 0 }, { x: 6, y: 0 }, [disc, far]);
    expect(both).toBeGreaterThan(8);
    expect(both).toBeCloseTo(
      Math.max(
        wayRoundLength({ x: -2, y: 0 }, { x: 6, y: 0 }, [disc]),
        wayRoundLength({ x: -2, y: 0 }, { x: 6, y: 0 }, [far]),
      ),
      12,
    );
  });

  it('finds the tangent points, and the way out along the rim from inside', () => {
    const [a, b] = tangentPoints({ x: -2, y: 0 }, disc);
    for (const p of [a, b]) {
      expect(Math.hypot(p.x, p.y)).toBeCloseTo(1, 12);
      // The radius to a tangent point is square to the line from the outside point.
      expect((p.x - -2) * p.x + p.y * p.y).toBeCloseTo(0, 12);
    }
    expect(a.y * b.y).toBeLessThan(0);
    const [c, d] = tangentPoints({ x: -0.5, y: 0 }, disc);
    expect([c.x, Math.abs(c.y), d.x, Math.abs(d.y)]).toEqual([-0.5, 1, -0.5, 1]);
  });

  it('names the first disc on the line, nearest to the start', () => {
    const far = { x: 4, y: 0, r: 0.5 };
    expect(firstInTheWay({ x: -2, y: 0 }, { x: 6, y: 0 }, [far, disc])).toBe(disc);
    expect(firstInTheWay({ x: -2, y: 3 }, { x: 6, y: 3 }, [far, disc])).toBeNull();
  });
});

describe('goal terms round the obstacle (isrr-obstacle)', () => {
  const scene = referenceScene('isrr-obstacle');
  const g = new TaskGeometry(scene);
  const x = initialState(scene);

  it('measure the goal distance round the obstacle when asked, and straight as the papers do otherwise', () => {
    const straight = buildCostTerm({ term: 'goal-distance', weight: 1 }, g, 0.03);
    const round = buildCostTerm({ term: 'goal-distance', weight: 1, aroundObstacles: true }, g, 0.03);
    // The object starts straight in front of the obstacle: the way round is longer.
    expect(straight.terminal!(x)).toBeCloseTo(g.goalDistance(x) ** 2, 12);
    expect(round.terminal!(x)).toBeGreaterThan(straight.terminal!(x) * 1.05);
  });

  it('head the fresh candidates along tangents past the obstacle, one on either side', () => {
    const [a, b] = waypoints(g, x, 0.03);
    const o = g.obstacles[0]!;
    // Each heading, from the object, passes the obstacle at the grown radius: obstacle 40 mm,
    // object 51.15 mm and a clearance and a half of 30 mm.
    const s = g.layout.sliderPose(x, g.goalIndex);
    for (const p of [a!, b!]) {
      const [dx, dy] = [p.x - s.x, p.y - s.y];
      const passing = Math.abs((o.x - s.x) * dy - (o.y - s.y) * dx) / Math.hypot(dx, dy);
      expect(passing).toBeCloseTo(0.04 + 0.05115 + 0.045, 9);
    }
    expect(a!.y * b!.y).toBeLessThan(0);
  });
});
