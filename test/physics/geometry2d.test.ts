import { describe, expect, it } from 'vitest';
import { footprintOf, footprintReach, footprintSupport, overlap } from '#physics/geometry2d';
import { boundingRadius } from '#contract/scene';

describe('footprintReach', () => {
  it('is the radius of a disc and the half-diagonal of a rectangle', () => {
    expect(footprintReach({ kind: 'disc', radius: 0.05 })).toBe(0.05);
    expect(footprintReach({ kind: 'rect', hx: 0.03, hy: 0.04 })).toBeCloseTo(0.05, 12);
  });

  it('agrees with the scene contract’s bounding radius for both shapes', () => {
    const box = { kind: 'box', sizeX: 0.109, sizeY: 0.154, height: 0.05 } as const;
    const cylinder = { kind: 'cylinder', radius: 0.051, height: 0.05 } as const;
    expect(footprintReach(footprintOf(box))).toBeCloseTo(boundingRadius(box), 12);
    expect(footprintReach(footprintOf(cylinder))).toBe(boundingRadius(cylinder));
  });

  it('bounds the body: a disc of that radius touches a rectangle rotated to any angle, no further', () => {
    const rect = { kind: 'rect', hx: 0.03, hy: 0.04 } as const;
    const reach = footprintReach(rect);
    for (let k = 0; k < 16; k++) {
      const phi = (k / 16) * 2 * Math.PI;
      const probe = {
        footprint: { kind: 'disc', radius: 0.001 } as const,
        x: reach + 0.0011,
        y: 0,
        theta: 0,
      };
      expect(overlap({ footprint: rect, x: 0, y: 0, theta: phi }, probe).depth).toBeLessThan(0);
    }
    // With a corner turned towards the probe, a probe 0.1 mm inside the reach touches it.
    const cornerOut = -Math.atan2(rect.hy, rect.hx);
    const inside = { footprint: { kind: 'disc', radius: 0.001 } as const, x: reach + 0.0009, y: 0, theta: 0 };
    expect(overlap({ footprint: rect, x: 0, y: 0, theta: cornerOut }, inside).depth).toBeGreaterThan(0);
  });
});

describe('footprintSupport', () => {
  it("is the radius of a disc in any direction, and a turned rectangle's extent along the direction", () => {
    expect(footprintSupport({ kind: 'disc', radius: 0.03 }, 1, Math.SQRT1_2, Math.SQRT1_2)).toBe(0.03);
    const plate = { kind: 'rect', hx: 0.01, hy: 0.06 } as const;
    expect(footprintSupport(plate, 0, 1, 0)).toBeCloseTo(0.01, 12);
    expect(footprintSupport(plate, 0, 0, -1)).toBeCloseTo(0.06, 12);
    // Turned a quarter, its long side faces +x.
    expect(footprintSupport(plate, Math.PI / 2, 1, 0)).toBeCloseTo(0.06, 12);
    // Along the diagonal it reaches its corner's projection.
    expect(footprintSupport(plate, 0, Math.SQRT1_2, Math.SQRT1_2)).toBeCloseTo(0.07 * Math.SQRT1_2, 12);
  });
});
