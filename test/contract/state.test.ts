import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StateLayout, wrapAngle } from '#contract/state';

describe('state layout', () => {
  const L = new StateLayout(['a', 'b']);

  it('documents the order: pusher, slider poses, pusher velocity, slider velocities', () => {
    expect(L.names).toEqual([
      'pusher.x',
      'pusher.y',
      'a.x',
      'a.y',
      'a.theta',
      'b.x',
      'b.y',
      'b.theta',
      'pusher.vx',
      'pusher.vy',
      'a.vx',
      'a.vy',
      'a.omega',
      'b.vx',
      'b.vy',
      'b.omega',
    ]);
    const s = L.create();
    L.setSlider(s, 1, { x: 1, y: 2, theta: 3 }, { vx: 4, vy: 5, omega: 6 });
    expect(L.toRecord(s)['b.theta']).toBe(3);
    expect(L.toRecord(s)['b.omega']).toBe(6);
  });

  it('differences angles on the circle, never by 2 pi', () => {
    const a = L.create();
    const b = L.create();
    L.setSlider(a, 0, { x: 0, y: 0, theta: Math.PI - 0.01 });
    L.setSlider(b, 0, { x: 0, y: 0, theta: -Math.PI + 0.01 });
    expect(L.difference(a, b)[4]).toBeCloseTo(-0.02, 12);
    expect(L.maxSliderPoseChange(a, b).rotation).toBeCloseTo(0.02, 12);
  });

  it('sum(b, difference(a, b)) equals a up to rounding, angles wrapped', () => {
    const v = fc.double({ min: -10, max: 10, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(v, { minLength: 16, maxLength: 16 }),
        fc.array(v, { minLength: 16, maxLength: 16 }),
        (xa, xb) => {
          const a = Float64Array.from(xa);
          const b = Float64Array.from(xb);
          const r = L.sum(b, L.difference(a, b));
          for (let j = 0; j < L.size; j++) {
            if (L.angleIndices.includes(j)) expect(Math.abs(wrapAngle(r[j]! - a[j]!))).toBeLessThan(1e-9);
            else expect(r[j]).toBeCloseTo(a[j]!, 9);
          }
        },
      ),
    );
  });

  it('wrapAngle leaves in-range angles exactly as they are', () => {
    expect(wrapAngle(Math.PI)).toBe(Math.PI);
    expect(wrapAngle(-Math.PI)).toBeCloseTo(Math.PI, 12);
    expect(wrapAngle(0.3)).toBe(0.3);
    expect(wrapAngle(3 * Math.PI)).toBeCloseTo(Math.PI, 12);
  });
});
