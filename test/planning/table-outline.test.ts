/**
 * The task's view of a table with an outline (wafr-l-shape): an object in the notch of the L has
 * left the table (the run fails) and the edge cost grows outside the outline's safe zone; on a
 * rectangle table both stay the formulas every earlier run used.
 */
import { describe, expect, it } from 'vitest';
import { initialState, type State } from '#contract/state';
import type { Scene } from '#contract/scene';
import { buildCostTerm } from '../../src-main/planning/costs/cost-terms';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { referenceScene } from '../helpers/scenes';

const edgeSpec = { term: 'edge', weight: 1, k: 50, safeMargin: 0.02 } as const;

function at(scene: Scene, g: TaskGeometry, x: number, y: number): State {
  const s = initialState(scene);
  g.layout.setSlider(s, 0, { x, y, theta: 0 });
  return s;
}

describe('an L-shaped table', () => {
  const scene = referenceScene('wafr-l-shape');
  const g = new TaskGeometry(scene);
  const edge = buildCostTerm(edgeSpec, g, 0.02);
  const cost = (x: number, y: number) => {
    const s = at(scene, g, x, y);
    return edge.running!({ x: s, next: s, u: [0, 0], uPrev: [0, 0] });
  };

  it('fails a run whose object is in the notch, though inside the bounding rectangle', () => {
    const notch = at(scene, g, -0.1, 0.1);
    expect(g.offTableDistance(notch, 0)).toBeCloseTo(0.18, 12);
    expect(g.assess(notch)).toEqual({ success: false, failure: 'off-table', detail: 'object off the table' });
    const leg = at(scene, g, 0, -0.19);
    expect(g.offTableDistance(leg, 0)).toBe(0);
    expect(g.assess(leg).failure).toBeNull();
    expect(g.assess(at(scene, g, 0.19, 0.2)).success).toBe(true);
  });

  it('charges the edge cost in the notch and near the inner edges, nothing deep inside a leg', () => {
    expect(cost(0, -0.19)).toBe(0);
    expect(cost(0.19, 0.1)).toBe(0);
    // 1 cm beyond the safe zone (0.01 m from the inner edge of the lower leg).
    expect(cost(-0.2, -0.09)).toBeCloseTo(Math.exp(50 * 0.01), 9);
    // In the notch: 0.18 m off the table, 0.2 m beyond the safe zone.
    expect(cost(-0.1, 0.1)).toBeCloseTo(Math.exp(50 * 0.2), 6);
    // It grows the further the object goes.
    expect(cost(-0.2, -0.05)).toBeGreaterThan(cost(-0.2, -0.09));
    expect(cost(-0.2, 0)).toBeGreaterThan(cost(-0.2, -0.05));
  });
});

describe('a rectangle table', () => {
  const scene = referenceScene('wafr-wide-table');
  const g = new TaskGeometry(scene);
  const edge = buildCostTerm(edgeSpec, g, 0.02);

  it('keeps the old off-table distance and edge cost, bit for bit', () => {
    const [hx, hy] = [scene.table.size.x / 2, scene.table.size.y / 2];
    const [safeX, safeY] = [hx - edgeSpec.safeMargin, hy - edgeSpec.safeMargin];
    for (const [x, y] of [
      [0, 0],
      [0.29, 0.1],
      [-0.285, 0.281],
      [0.31, -0.35],
      [0.123456789, -0.2987654321],
    ] as const) {
      const s = at(scene, g, x, y);
      expect(g.offTableDistance(s, 0)).toBe(Math.max(Math.abs(x) - hx, Math.abs(y) - hy, 0));
      const d = Math.max(Math.abs(x) - safeX, Math.abs(y) - safeY);
      const old = d > 0 ? edgeSpec.weight * Math.exp(edgeSpec.k * d) : 0;
      expect(edge.running!({ x: s, next: s, u: [0, 0], uPrev: [0, 0] })).toBe(old);
    }
  });
});
