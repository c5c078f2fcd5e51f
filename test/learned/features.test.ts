import { describe, expect, it } from 'vitest';
import { layoutForScene, wrapAngle } from '#contract/state';
import {
  applyOutput,
  encodeInput,
  encodeTarget,
  INPUT_SIZE,
  OUTPUT_SIZE,
} from '../../src-main/learned/features';
import { pushGeometryOf } from '../../src-main/learned/geometry';
import { fineSceneFor } from '../../src-main/learned/generate';
import { defaultSamplingSettings, sampleTransitionStart } from '../../src-main/learned/sampling';
import { padState, paddedLayout, parkingPlaces, unpadState } from '../../src-main/learned/slots';
import { Rng } from '../../src-main/common/rng';
import { referenceScene } from '../helpers/scenes';

const base = referenceScene('cvs-multi-object');
const geometry = pushGeometryOf(base);

describe('padded slots', () => {
  it('pads with parked sliders and unpads back to the same state', () => {
    const L = layoutForScene(fineSceneFor(base, 2));
    const x = L.create();
    L.setPusher(x, 0.1, -0.05, 0.02, 0.01);
    L.setSlider(x, 0, { x: 0.2, y: 0.1, theta: 0.5 }, { vx: 0.01, vy: 0, omega: 0.2 });
    L.setSlider(x, 1, { x: -0.1, y: 0.15, theta: -2 }, { vx: 0, vy: 0.03, omega: 0 });
    const p = padState(x, L);
    expect(paddedLayout.sliderPose(p, 2)).toEqual({ ...parkingPlaces[2]!, theta: 0 });
    expect(paddedLayout.sliderPose(p, 3)).toEqual({ ...parkingPlaces[3]!, theta: 0 });
    expect(Array.from(unpadState(p, L))).toEqual(Array.from(x));
  });
});

describe('features', () => {
  it('encodes positions relative to the pusher in the push frame, parked slots as constants', () => {
    const x = paddedLayout.create();
    paddedLayout.setPusher(x, 0.1, 0.2, 0.03, 0.04);
    paddedLayout.setSlider(x, 0, { x: 0.25, y: 0.1, theta: Math.PI / 2 }, { vx: 1, vy: 2, omega: 3 });
    const f = new Float32Array(INPUT_SIZE);
    // Push along +y: the frame's x axis is the table's y axis.
    encodeInput(x, 0, 0.05, 1, f);
    expect(f[0]).toBe(1); // in use
    expect(f[1]).toBeCloseTo(-0.1, 6); // 0.1 m behind in y
    expect(f[2]).toBeCloseTo(-0.15, 6); // 0.15 m to the right (table +x)
    expect(f[3]).toBeCloseTo(1, 6); // theta - heading = 0
    expect(f[4]).toBeCloseTo(0, 6);
    expect(f[5]).toBeCloseTo(2, 6);
    expect(f[6]).toBeCloseTo(-1, 6);
    expect(f[7]).toBe(3);
    expect(Array.from(f.subarray(8, 16))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]); // parked
    const tail = Array.from(f.subarray(INPUT_SIZE - 4));
    [0.04, -0.03, 0.05, 0].forEach((v, k) => expect(tail[k]).toBeCloseTo(v, 6));
    // Moving the whole scene and turning it with the push leaves the features unchanged.
    const turned = paddedLayout.create();
    const a = 0.7;
    const rot = (vx: number, vy: number): [number, number] => [
      Math.cos(a) * vx - Math.sin(a) * vy,
      Math.sin(a) * vx + Math.cos(a) * vy,
    ];
    const [pvx, pvy] = rot(0.03, 0.04);
    paddedLayout.setPusher(turned, -0.3, 0.05, pvx, pvy);
    const [rx, ry] = rot(0.15, -0.1);
    const [vx, vy] = rot(1, 2);
    paddedLayout.setSlider(
      turned,
      0,
      { x: -0.3 + rx, y: 0.05 + ry, theta: Math.PI / 2 + a },
      { vx, vy, omega: 3 },
    );
    const [ux, uy] = rot(0, 0.05);
    const g = new Float32Array(INPUT_SIZE);
    encodeInput(turned, ux, uy, 1, g);
    for (let k = 0; k < INPUT_SIZE; k++) expect(g[k]).toBeCloseTo(f[k]!, 5);
  });

  it('applying the encoded target to the start state gives the end state of the active slots', () => {
    const rng = new Rng(7);
    for (let n = 1; n <= 4; n++) {
      const { x } = sampleTransitionStart(rng, geometry, n);
      const end = x.slice();
      for (let i = 0; i < n; i++) {
        const p = paddedLayout.posOffset(i);
        end[p] = end[p]! + 0.01 * (i + 1);
        end[p + 2] = wrapAngle(end[p + 2]! + 3); // crosses +-pi for most angles
        paddedLayout.setSlider(end, i, paddedLayout.sliderPose(end, i), { vx: 0.02, vy: -0.01, omega: 0.3 });
      }
      paddedLayout.setPusher(end, x[0]! + 0.05, x[1]! - 0.02, 0.05, -0.02);
      const y = new Float32Array(OUTPUT_SIZE);
      encodeTarget(x, end, 0.05, -0.02, y);
      const back = applyOutput(x, 0.05, -0.02, 1, y, 0, n, paddedLayout.create());
      for (let j = 0; j < paddedLayout.size; j++) expect(back[j]).toBeCloseTo(end[j]!, 6);
    }
  });
});

describe('sampleTransitionStart', () => {
  it('draws non-penetrating starts inside the region, with |u| <= max speed, the same for the same seed', () => {
    const s = defaultSamplingSettings;
    const a = new Rng(11);
    const b = new Rng(11);
    const R = geometry.sliderRadius;
    for (let k = 0; k < 200; k++) {
      const n = 1 + (k % 4);
      const t = sampleTransitionStart(a, geometry, n);
      expect(Array.from(sampleTransitionStart(b, geometry, n).x)).toEqual(Array.from(t.x));
      expect(Math.hypot(t.ux, t.uy)).toBeLessThanOrEqual(s.maxSpeed + 1e-12);
      const [px, py] = paddedLayout.pusherPosition(t.x);
      for (let i = 0; i < n; i++) {
        const p = paddedLayout.sliderPose(t.x, i);
        expect(Math.abs(p.x)).toBeLessThanOrEqual(s.halfX);
        expect(Math.abs(p.y)).toBeLessThanOrEqual(s.halfY);
        expect(Math.hypot(p.x - px, p.y - py)).toBeGreaterThanOrEqual(R + geometry.pusherRadius);
        for (let j = i + 1; j < n; j++) {
          const q = paddedLayout.sliderPose(t.x, j);
          expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeGreaterThanOrEqual(2 * R);
        }
      }
      for (let i = n; i < 4; i++)
        expect(paddedLayout.sliderPose(t.x, i)).toEqual({ ...parkingPlaces[i]!, theta: 0 });
    }
  });
});
