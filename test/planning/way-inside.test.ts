/**
 * The way inside a table with an outline (way-inside.ts): straight on a convex table, round the
 * inner corner of the L, and the costs and TAMPC candidates that use it on wafr-l-shape.
 */
import { describe, expect, it } from 'vitest';
import { initialState, type State } from '#contract/state';
import type { Scene } from '#contract/scene';
import { buildCostTerm } from '../../src-main/planning/costs/cost-terms';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { candidateSequences } from '../../src-main/planning/tampc/tampc-planner';
import { firstWaypoint, innerCorners, wayInsideLength } from '../../src-main/planning/way-inside';
import { referenceScene } from '../helpers/scenes';

const margin = 0.02;
const lShape = referenceScene('wafr-l-shape');
const corners = innerCorners(lShape.table.outline, margin);

function at(scene: Scene, g: TaskGeometry, x: number, y: number): State {
  const s = initialState(scene);
  g.layout.setSlider(s, 0, { x, y, theta: 0 });
  return s;
}

describe('the way inside a table', () => {
  it('finds no inner corner on a convex outline or a table without one, and the straight line there', () => {
    const square = [
      { x: -0.3, y: -0.3 },
      { x: 0.3, y: -0.3 },
      { x: 0.3, y: 0.3 },
      { x: -0.3, y: 0.3 },
    ];
    expect(innerCorners(square, margin)).toEqual([]);
    expect(innerCorners(undefined, margin)).toEqual([]);
    const a = { x: -0.2, y: -0.19 };
    const b = { x: 0.19, y: 0.2 };
    expect(wayInsideLength(a, b, [])).toBe(Math.hypot(b.x - a.x, b.y - a.y));
    expect(firstWaypoint(a, b, [])).toBe(b);
  });

  it('finds the one inner corner of the L, with its 270 degree table side', () => {
    expect(corners).toHaveLength(1);
    expect(corners[0]).toMatchObject({ x: 0.08, y: -0.08, r: margin });
    expect(corners[0]!.interior).toBeCloseTo((3 * Math.PI) / 2, 12);
  });

  it('goes round the corner from the first leg to the goal in the other', () => {
    const start = { x: -0.2, y: -0.19 };
    const goal = { x: 0.19, y: 0.2 };
    const straight = Math.hypot(goal.x - start.x, goal.y - start.y);
    const way = wayInsideLength(start, goal, corners);
    // Longer than the straight line; a little longer than the polyline through the point 'margin'
    // beyond the corner on its diagonal, which cuts into the disc (tangent, arc, tangent keeps out).
    expect(way).toBeGreaterThan(straight + 0.05);
    const via = { x: 0.08 + margin / Math.SQRT2, y: -0.08 - margin / Math.SQRT2 };
    const viaLength =
      Math.hypot(via.x - start.x, via.y - start.y) + Math.hypot(goal.x - via.x, goal.y - via.y);
    expect(way).toBeGreaterThan(viaLength);
    expect(way).toBeLessThan(viaLength + 0.005);
    // The first waypoint is on the corner's rim, on the table side (below and right of the corner).
    const w = firstWaypoint(start, goal, corners);
    expect(Math.hypot(w.x - 0.08, w.y + 0.08)).toBeCloseTo(margin, 12);
    expect(w.y).toBeLessThan(-0.08);
  });

  it('gives nothing for pushing the object off the first leg into the cut-out, where the straight distance falls', () => {
    const goal = { x: 0.19, y: 0.2 };
    const edge = { x: -0.1, y: -0.09 };
    const cut = { x: -0.1, y: -0.03 };
    const straight = (p: { x: number; y: number }) => Math.hypot(goal.x - p.x, goal.y - p.y);
    expect(straight(cut)).toBeLessThan(straight(edge) - 0.03);
    expect(wayInsideLength(cut, goal, corners)).toBeGreaterThan(wayInsideLength(edge, goal, corners));
    // Along the leg towards the corner the way falls.
    expect(wayInsideLength({ x: 0, y: -0.19 }, goal, corners)).toBeLessThan(
      wayInsideLength({ x: -0.2, y: -0.19 }, goal, corners) - 0.15,
    );
  });

  it('leads from on the corner disc round its rim towards the goal', () => {
    const goal = { x: 0.19, y: 0.2 };
    const onRim = { x: 0.08, y: -0.08 - margin };
    const w = firstWaypoint(onRim, goal, corners);
    expect(Math.hypot(w.x - 0.08, w.y + 0.08)).toBeCloseTo(margin, 12);
    expect(w.x).toBeGreaterThan(onRim.x);
    expect(wayInsideLength(w, goal, corners)).toBeLessThan(wayInsideLength(onRim, goal, corners));
  });

  it('is the straight line between two points that see each other past the corner', () => {
    const a = { x: 0.2, y: -0.2 };
    const b = { x: 0.19, y: 0.2 };
    expect(wayInsideLength(a, b, corners)).toBe(Math.hypot(b.x - a.x, b.y - a.y));
    const c = { x: -0.25, y: -0.2 };
    const d = { x: 0.25, y: -0.15 };
    expect(wayInsideLength(c, d, corners)).toBe(Math.hypot(d.x - c.x, d.y - c.y));
  });

  it('is continuous as the line starts to touch the corner disc', () => {
    const goal = { x: 0.19, y: 0.2 };
    let last = wayInsideLength({ x: 0.2, y: -0.25 }, goal, corners);
    for (let x = 0.2; x >= -0.25; x -= 0.001) {
      const l = wayInsideLength({ x, y: -0.25 }, goal, corners);
      expect(Math.abs(l - last)).toBeLessThan(0.0015);
      last = l;
    }
  });
});

describe('the costs on the L', () => {
  const g = new TaskGeometry(lShape);
  const goalRegion = buildCostTerm({ term: 'goal-region', weight: 100 }, g, 0.02, margin);
  const failure = buildCostTerm({ term: 'failure', weight: 50 }, g, 0.02, margin);
  const edge = buildCostTerm({ term: 'edge', weight: 1, k: 50, safeMargin: 0.02 }, g, 0.02, margin);

  it('charges the goal region along the way round the corner', () => {
    const s = at(lShape, g, -0.2, -0.19);
    const way = wayInsideLength({ x: -0.2, y: -0.19 }, g.goal, corners);
    expect(goalRegion.terminal!(s)).toBeCloseTo(100 * (way - g.goal.radius) ** 2, 12);
  });

  it('fails and charges the edge for a control that crosses the cut-out between two states on the table', () => {
    const from = at(lShape, g, 0.03, -0.1);
    const to = at(lShape, g, 0.1, 0.0);
    expect(g.assess(from).failure).toBeNull();
    expect(g.assess(to).failure).toBeNull();
    const t = { x: from, next: to, u: [0.07, 0.1], uPrev: [0, 0] };
    expect(failure.running!(t)).toBe(50);
    expect(edge.running!(t)).toBeGreaterThan(Math.exp(50 * 0.02));
    // The same move within the first leg costs nothing.
    const along = { x: from, next: at(lShape, g, 0.1, -0.19), u: [0.07, -0.09], uPrev: [0, 0] };
    expect(failure.running!(along)).toBe(0);
    expect(edge.running!(along)).toBe(0);
  });
});

describe('TAMPC candidates on the L', () => {
  const g = new TaskGeometry(lShape);
  const limits = { controlDuration: 1, maxSpeed: 0.5 };
  const o = { candidates: 3, minActions: 1, maxActions: 8, ...limits, tableCorners: corners };

  /** The object's path if it follows the pusher's moves from where it stands. */
  function objectPath(x: State, seq: readonly (readonly number[])[]): { x: number; y: number }[] {
    const p = g.layout.sliderPose(x, 0);
    const out = [{ x: p.x, y: p.y }];
    for (const u of seq) {
      const last = out[out.length - 1]!;
      out.push({ x: last.x + u[0]!, y: last.y + u[1]! });
    }
    return out;
  }

  it('push round the corner, never across the cut-out, from the pusher in position in the first leg', () => {
    // The object 0.1 m before the corner square, the pusher just behind it (to the left).
    const x = at(lShape, g, -0.02, -0.12);
    const reach = 0.05115 + 0.0145;
    g.layout.setPusher(x, -0.02 - reach - 0.005, -0.12);
    const c = candidateSequences(g, x, o);
    expect(c.map((s) => s.length)).toEqual([1, 5, 8]);
    const w = firstWaypoint({ x: -0.02, y: -0.12 }, g.goal, corners);
    for (const seq of c) {
      const path = objectPath(x, seq);
      // The first control heads for the waypoint at the corner, not for the goal.
      const first = path[1]!;
      const along =
        ((first.x + 0.02) * (w.x + 0.02) + (first.y + 0.12) * (w.y + 0.12)) /
        Math.hypot(w.x + 0.02, w.y + 0.12);
      expect(along).toBeCloseTo(Math.hypot(first.x + 0.02, first.y + 0.12), 9);
      // Every move between two points of the path stays on the table.
      for (let i = 1; i < path.length; i++)
        for (let f = 0; f <= 1; f += 0.05) {
          const px = path[i - 1]!.x + f * (path[i]!.x - path[i - 1]!.x);
          const py = path[i - 1]!.y + f * (path[i]!.y - path[i - 1]!.y);
          expect(g.table.contains(px, py)).toBe(true);
        }
    }
    // The slow candidate reaches the goal region along the way.
    const end = objectPath(x, c[2]!).at(-1)!;
    expect(Math.hypot(end.x - g.goal.x, end.y - g.goal.y)).toBeLessThan(g.goal.radius);
  });

  it('stay the straight pushes to the goal once the object is past the corner', () => {
    const x = at(lShape, g, 0.19, -0.15);
    g.layout.setPusher(x, 0.19, -0.15 - 0.05115 - 0.0145 - 0.005);
    const withCorners = candidateSequences(g, x, o);
    const without = candidateSequences(g, x, { ...o, tableCorners: [] });
    expect(withCorners).toEqual(without);
    for (const seq of withCorners) expect(new Set(seq.map((u) => u.join())).size).toBe(1);
  });
});
