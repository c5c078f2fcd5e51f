import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { projectFeasible, projectionGeometry } from '#physics/projection';
import { overlap, type Placed } from '#physics/geometry2d';
import { layoutForScene } from '#contract/state';
import type { Scene } from '#contract/scene';
import { referenceScene } from '../helpers/scenes';

const exact = { tolerance: 0, maxSweeps: 200 };

function withBoxes(scene: Scene): Scene {
  // Two cylinders and two boxes: every pair kind the projection handles. The box obstacle must be
  // ignored: objects jammed against a fixed obstacle used to be left overlapping each other.
  const box = { kind: 'box' as const, sizeX: 0.109, sizeY: 0.154, height: 0.05 };
  return {
    ...scene,
    sliders: scene.sliders.map((s, i) => (i < 2 ? s : { ...s, shape: box })),
    obstacles: [
      {
        id: 'wall',
        shape: { kind: 'box', sizeX: 0.05, sizeY: 0.2, height: 0.06 },
        pose: { x: 0.3, y: 0, theta: 0.2 },
      },
    ],
  };
}

const scene = withBoxes(referenceScene('cvs-multi-object'));
const L = layoutForScene(scene);
const geom = projectionGeometry(scene);

function bodies(x: Float64Array): Placed[] {
  const out: Placed[] = [{ footprint: geom.pusher, x: x[0]!, y: x[1]!, theta: 0 }];
  for (let i = 0; i < L.sliderCount; i++) out.push({ footprint: geom.sliders[i]!, ...L.sliderPose(x, i) });
  return out;
}

describe('infeasible-state projection', () => {
  it('moves a slider out of the pusher by exactly the penetration depth along the normal', () => {
    const single = { ...scene, sliders: scene.sliders.slice(0, 1), obstacles: [] };
    const L1 = layoutForScene(single);
    const x = L1.create();
    L1.setPusher(x, 0, 0);
    L1.setSlider(x, 0, { x: 0.03, y: 0.04, theta: 0 }); // 50 mm apart, 65.65 mm needed
    projectFeasible(x, L1, projectionGeometry(single), exact);
    const p = L1.sliderPose(x, 0);
    expect(Math.hypot(p.x, p.y)).toBeCloseTo(0.0145 + 0.05115, 12);
    // Along the normal: direction unchanged.
    expect(Math.atan2(p.y, p.x)).toBeCloseTo(Math.atan2(0.04, 0.03), 12);
  });

  it('leaves a feasible state untouched (bit for bit)', () => {
    const x = L.create();
    L.setPusher(x, -0.35, -0.25);
    [
      { x: -0.2, y: 0, theta: 0 },
      { x: 0, y: 0.2, theta: 1 },
      { x: 0, y: -0.2, theta: 0.3 },
      { x: 0.1, y: 0, theta: -2 },
    ].forEach((pose, i) => L.setSlider(x, i, pose));
    const before = Array.from(x);
    expect(projectFeasible(x, L, geom, exact)).toBe(0);
    expect(Array.from(x)).toEqual(before);
  });

  it('ends random overlapping configurations with no penetration', () => {
    const coord = fc.double({ min: -0.25, max: 0.25, noNaN: true });
    const angle = fc.double({ min: -Math.PI, max: Math.PI, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.tuple(coord, coord, angle), { minLength: 5, maxLength: 5 }), (poses) => {
        const x = L.create();
        L.setPusher(x, poses[0]![0], poses[0]![1]);
        for (let i = 0; i < L.sliderCount; i++) {
          const [px, py, th] = poses[i + 1]!;
          L.setSlider(x, i, { x: px, y: py, theta: th });
        }
        projectFeasible(x, L, geom, exact);
        const bs = bodies(x);
        for (let a = 0; a < bs.length; a++) {
          for (let b = a + 1; b < bs.length; b++) {
            expect(overlap(bs[a]!, bs[b]!).depth).toBeLessThan(1e-9);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('leaves a slider inside an obstacle where it is: that is a failure for the cost, not an infeasibility', () => {
    const x = L.create();
    L.setPusher(x, -0.35, -0.25);
    [
      { x: 0.3, y: 0, theta: 0 }, // on the wall obstacle's centre
      { x: 0, y: 0.2, theta: 1 },
      { x: 0, y: -0.2, theta: 0.3 },
      { x: 0.1, y: 0, theta: -2 },
    ].forEach((pose, i) => L.setSlider(x, i, pose));
    expect(projectFeasible(x, L, geom, exact)).toBe(0);
    expect(L.sliderPose(x, 0).x).toBe(0.3);
  });

  it('resolves a single overlap with the smallest displacement: along the normal, by the depth', () => {
    const single = { ...scene, sliders: scene.sliders.slice(2, 3), obstacles: [] };
    const L1 = layoutForScene(single);
    const g1 = projectionGeometry(single);
    const coord = fc.double({ min: -0.08, max: 0.08, noNaN: true });
    fc.assert(
      fc.property(coord, coord, fc.double({ min: -3, max: 3, noNaN: true }), (sx, sy, th) => {
        const x = L1.create();
        L1.setSlider(x, 0, { x: sx, y: sy, theta: th });
        const pusher: Placed = { footprint: g1.pusher, x: 0, y: 0, theta: 0 };
        const before = overlap(pusher, { footprint: g1.sliders[0]!, ...L1.sliderPose(x, 0) });
        fc.pre(before.depth > 1e-6);
        projectFeasible(x, L1, g1, exact);
        const p = L1.sliderPose(x, 0);
        expect(p.x - sx).toBeCloseTo(before.nx * before.depth, 9);
        expect(p.y - sy).toBeCloseTo(before.ny * before.depth, 9);
        expect(overlap(pusher, { footprint: g1.sliders[0]!, ...p }).depth).toBeLessThan(1e-9);
      }),
      { numRuns: 300 },
    );
  });
});
