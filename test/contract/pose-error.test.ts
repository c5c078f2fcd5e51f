import { describe, expect, it } from 'vitest';
import { objectErrors, poseResidual } from '#contract/pose-error';
import { StateLayout } from '#contract/state';

describe('pose error', () => {
  const L = new StateLayout(['a', 'b']);
  const predicted = L.create();
  const observed = L.create();
  L.setSlider(predicted, 0, { x: 0.13, y: 0.24, theta: 0.5 });
  L.setSlider(observed, 0, { x: 0.1, y: 0.2, theta: 0.7 });
  // b's yaw crosses the +-pi seam: 0.02 rad apart, never 2 pi - 0.02.
  L.setSlider(predicted, 1, { x: -0.3, y: 0.05, theta: -Math.PI + 0.01 });
  L.setSlider(observed, 1, { x: -0.3, y: 0.1, theta: Math.PI - 0.01 });

  it("gives each object's distance and absolute wrapped yaw", () => {
    const e = objectErrors(L, predicted, observed);
    expect(e.map((x) => x.id)).toEqual(['a', 'b']);
    expect(e[0]!.position).toBeCloseTo(0.05, 12);
    expect(e[0]!.yaw).toBeCloseTo(0.2, 12);
    expect(e[1]!.position).toBeCloseTo(0.05, 12);
    expect(e[1]!.yaw).toBeCloseTo(0.02, 12);
  });

  it('gives the signed residuals, three an object, that the errors are the size of', () => {
    const r = poseResidual(L, predicted, observed);
    const expected = [0.03, 0.04, -0.2, 0, -0.05, 0.02];
    expect(r).toHaveLength(expected.length);
    r.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 12));
  });
});
