/**
 * The table region (contract/table-region.ts) and the polygon geometry under it: inside, outside
 * and distances on the rectangle (bit for bit the formulas every run before outlines used) and on
 * an L-shaped outline; the outline's validation; the triangulation the session log draws with.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signedArea2, triangulate, type Vertex } from '#contract/polygon';
import { outlineProblems, tableRegion } from '#contract/table-region';

/** The L of wafr-l-shape: a 0.6 m square without its -x +y corner, legs 0.22 m wide. */
const L: Vertex[] = [
  { x: -0.3, y: -0.3 },
  { x: 0.3, y: -0.3 },
  { x: 0.3, y: 0.3 },
  { x: 0.08, y: 0.3 },
  { x: 0.08, y: -0.08 },
  { x: -0.3, y: -0.08 },
];
const lTable = { size: { x: 0.6, y: 0.6 }, outline: L };

const coordinate = fc.double({ min: -1, max: 1, noNaN: true });

describe('the rectangle table (no outline)', () => {
  const size = { x: 1, y: 0.8 };
  const region = tableRegion({ size });
  const [hx, hy] = [size.x / 2, size.y / 2];

  it('is the old on-table test, off-table distance and edge cost, bit for bit', () => {
    fc.assert(
      fc.property(coordinate, coordinate, fc.double({ min: 0, max: 0.3, noNaN: true }), (x, y, margin) => {
        expect(region.contains(x, y)).toBe(Math.abs(x) <= hx && Math.abs(y) <= hy);
        expect(Math.max(region.excess(x, y), 0)).toBe(Math.max(Math.abs(x) - hx, Math.abs(y) - hy, 0));
        const [safeX, safeY] = [hx - margin, hy - margin];
        expect(region.shrunk(margin).excess(x, y)).toBe(Math.max(Math.abs(x) - safeX, Math.abs(y) - safeY));
      }),
    );
  });

  it('counts its edges on the table', () => {
    expect(region.contains(0.5, -0.4)).toBe(true);
    expect(region.contains(0.5 + 1e-12, 0)).toBe(false);
  });
});

describe('the L-shaped table', () => {
  const region = tableRegion(lTable);

  it('tells the legs from the notch', () => {
    for (const [x, y] of [
      [-0.2, -0.19],
      [0.19, 0.2],
      [0.19, -0.19],
    ] as const)
      expect(region.contains(x, y), `(${x}, ${y})`).toBe(true);
    for (const [x, y] of [
      [-0.1, 0.1],
      [0, 0],
      [-0.29, 0.29],
      [0.4, 0],
    ] as const)
      expect(region.contains(x, y), `(${x}, ${y})`).toBe(false);
  });

  it('measures the signed distance to the nearest edge or corner', () => {
    // On a leg's centre line, 0.11 m from both long edges; the starts are 0.1 m from the legs' ends.
    expect(region.excess(0, -0.19)).toBeCloseTo(-0.11, 12);
    expect(region.excess(-0.2, -0.19)).toBeCloseTo(-0.1, 12);
    expect(region.excess(0.19, 0.2)).toBeCloseTo(-0.1, 12);
    // Deep in the notch: 0.18 m from the inner edges.
    expect(region.excess(-0.1, 0.1)).toBeCloseTo(0.18, 12);
    // Near the inner (reflex) corner, inside and outside: the distance to the corner point.
    expect(region.excess(0.1, -0.1)).toBeCloseTo(-Math.hypot(0.02, 0.02), 12);
    expect(region.excess(0.07, -0.07)).toBeCloseTo(0.01, 12);
    // Outside an outer corner: Euclidean, where the rectangle takes the larger axis distance.
    expect(region.excess(0.33, -0.34)).toBeCloseTo(0.05, 12);
    expect(tableRegion({ size: lTable.size }).excess(0.33, -0.34)).toBeCloseTo(0.04, 12);
    // On the boundary.
    expect(region.excess(0.08, 0.1)).toBeCloseTo(0, 15);
    expect(region.contains(0.08, 0.1)).toBe(true);
  });

  it('shrinks by a margin: the safe zone', () => {
    const safe = region.shrunk(0.02);
    expect(safe.excess(0, -0.19)).toBeCloseTo(-0.09, 12);
    // The lower leg's safe zone ends 0.02 m below its inner edge (y = -0.08).
    expect(safe.contains(-0.2, -0.101)).toBe(true);
    expect(safe.contains(-0.2, -0.099)).toBe(false);
    expect(safe.shrunk(0.03).excess(0, -0.19)).toBeCloseTo(-0.06, 12);
  });

  it('agrees with the rectangle inside when the outline is the rectangle', () => {
    const rect = { size: { x: 1, y: 0.8 } };
    const outlined = tableRegion({
      ...rect,
      outline: [
        { x: -0.5, y: -0.4 },
        { x: 0.5, y: -0.4 },
        { x: 0.5, y: 0.4 },
        { x: -0.5, y: 0.4 },
      ],
    });
    const plain = tableRegion(rect);
    fc.assert(
      fc.property(coordinate, coordinate, (x, y) => {
        expect(outlined.contains(x, y)).toBe(plain.contains(x, y));
        if (plain.contains(x, y)) expect(outlined.excess(x, y)).toBeCloseTo(plain.excess(x, y), 12);
        else expect(outlined.excess(x, y)).toBeGreaterThanOrEqual(plain.excess(x, y) - 1e-12);
      }),
    );
  });
});

describe('outline validation', () => {
  const problems = (outline: Vertex[], size = { x: 0.6, y: 0.6 }) => outlineProblems({ size, outline });

  it('accepts the L and a table without an outline', () => {
    expect(problems(L)).toEqual([]);
    expect(outlineProblems({ size: { x: 1, y: 1 } })).toEqual([]);
  });

  it('names the point outside the size', () => {
    const out = L.map((p, i) => (i === 3 ? { x: 0.08, y: 0.31 } : p));
    expect(problems(out)).toEqual([{ point: 3, message: expect.stringMatching(/outside table\.size/) }]);
  });

  it('names a repeated point, and a first point repeated at the end', () => {
    expect(problems([...L.slice(0, 3), L[2]!, ...L.slice(3)])).toEqual([
      { point: 3, message: 'repeats point 2' },
    ]);
    expect(problems([...L, L[0]!])).toEqual([{ point: 0, message: expect.stringMatching(/do not repeat/) }]);
  });

  it('rejects crossing edges, a spike and a clockwise outline', () => {
    const bowtie = [
      { x: -0.2, y: -0.2 },
      { x: 0.2, y: 0.2 },
      { x: 0.2, y: -0.2 },
      { x: -0.2, y: 0.2 },
    ];
    expect(problems(bowtie)).toEqual([
      {
        point: null,
        message: expect.stringMatching(/edge 0 \(points 0-1\) and edge 2 \(points 2-3\) cross/),
      },
    ]);
    const spike = [
      { x: -0.2, y: -0.2 },
      { x: 0.2, y: -0.2 },
      { x: 0.2, y: 0.2 },
      { x: 0.2, y: 0.1 },
      { x: -0.2, y: 0.2 },
    ];
    expect(problems(spike)).toEqual([{ point: null, message: expect.stringMatching(/simple polygon/) }]);
    expect(problems([...L].reverse())).toEqual([
      { point: null, message: expect.stringMatching(/clockwise/) },
    ]);
  });
});

describe('triangulate', () => {
  const area = (poly: readonly Vertex[]) => signedArea2(poly) / 2;

  it('covers the L, the changing table and a comb with counter-clockwise triangles', () => {
    const comb: Vertex[] = [
      { x: 0, y: 0 },
      { x: 5, y: 0 },
      { x: 5, y: 2 },
      { x: 4, y: 2 },
      { x: 4, y: 1 },
      { x: 3, y: 1 },
      { x: 3, y: 2 },
      { x: 2, y: 2 },
      { x: 2, y: 1 },
      { x: 1, y: 1 },
      { x: 1, y: 1.5 },
      { x: 0, y: 1.5 },
    ];
    const changing: Vertex[] = [
      { x: -0.55, y: -0.3 },
      { x: 0.05, y: -0.3 },
      { x: 0.05, y: -0.08 },
      { x: 0.55, y: -0.08 },
      { x: 0.55, y: 0.08 },
      { x: 0.05, y: 0.08 },
      { x: 0.05, y: 0.3 },
      { x: -0.55, y: 0.3 },
    ];
    for (const poly of [L, changing, comb]) {
      const triangles = triangulate(poly);
      expect(triangles).toHaveLength(poly.length - 2);
      const areas = triangles.map((t) => area(t.map((i) => poly[i]!)));
      for (const a of areas) expect(a).toBeGreaterThan(0);
      expect(areas.reduce((a, b) => a + b, 0)).toBeCloseTo(area(poly), 12);
    }
  });
});
