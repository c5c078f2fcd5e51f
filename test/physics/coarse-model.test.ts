import { describe, expect, it } from 'vitest';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { openTableScene } from '../helpers/scenes';

const scene = openTableScene(1);
const model = new AnalyticalCoarseModel(scene);
const L = model.layout;
const rs = 0.05115;
const rp = 0.0145;
const R = rs + rp;

function stateWith(
  pusher: [number, number],
  slider = { x: 0, y: 0, theta: 0 },
  sliderVel = { vx: 0, vy: 0, omega: 0 },
) {
  const x = L.create();
  L.setPusher(x, pusher[0], pusher[1]);
  L.setSlider(x, 0, slider, sliderVel);
  return x;
}

describe('analytical coarse model (ISRR 2019 Eq. 6-9)', () => {
  it('without contact moves only the pusher and keeps the slider velocity (Eq. 8, 9)', () => {
    const x0 = stateWith([-0.2, 0.2], { x: 0, y: 0, theta: 0.3 }, { vx: 0.01, vy: -0.02, omega: 0.03 });
    const x1 = model.step(x0, 0.05, 0.02, 1);
    const [px, py] = L.pusherPosition(x1);
    expect(px).toBeCloseTo(-0.15, 15);
    expect(py).toBeCloseTo(0.22, 15);
    expect(L.pusherVelocity(x1)).toEqual([0.05, 0.02]);
    expect(L.sliderPose(x1, 0)).toEqual({ x: 0, y: 0, theta: 0.3 });
    expect(L.sliderVelocity(x1, 0)).toEqual({ vx: 0.01, vy: -0.02, omega: 0.03 });
  });

  it('head-on contact part-way through the step moves the slider by u * p_c * dt, no rotation', () => {
    // 20 mm of free travel at 50 mm/s: contact after 0.4 s, so p_c = 0.6.
    const x1 = model.step(stateWith([-R - 0.02, 0]), 0.05, 0, 1);
    const p = L.sliderPose(x1, 0);
    expect(p.x).toBeCloseTo(0.05 * 0.6, 12);
    expect(p.y).toBeCloseTo(0, 12);
    expect(p.theta).toBeCloseTo(0, 12);
    const v = L.sliderVelocity(x1, 0);
    expect([v.vx, v.vy]).toEqual([0.05, 0]);
    expect(v.omega).toBeCloseTo(0, 12);
  });

  it('off-centre contact turns the slider by K_omega |u| sin(theta) / |r_c|', () => {
    const b = 0.03; // contact path 30 mm above the slider centre
    const xTouch = -Math.sqrt(R * R - b * b);
    const x1 = model.step(stateWith([xTouch - 0.01, b]), 0.05, 0, 1);
    const pc = 0.8; // 10 mm of free travel at 50 mm/s
    // Contact point at (xTouch, b) * rs / R; r_c x u = -rcy * u = -b * rs / R * 0.05.
    const omega = (0.1 * (-b * (rs / R) * 0.05)) / (rs * rs);
    expect(omega).toBeGreaterThan(-0.05); // inside the clamp
    const p = L.sliderPose(x1, 0);
    expect(p.x).toBeCloseTo(0.05 * pc, 12);
    expect(p.theta).toBeCloseTo(omega * pc, 12);
    expect(L.sliderVelocity(x1, 0).omega).toBeCloseTo(omega, 12);
  });

  it('clamps the angular speed to maxOmega', () => {
    const b = 0.06;
    const xTouch = -Math.sqrt(R * R - b * b);
    const x1 = model.step(stateWith([xTouch - 0.001, b]), 0.1, 0, 1);
    expect(L.sliderVelocity(x1, 0).omega).toBeCloseTo(-0.05, 12);
  });

  it('does not move a slider the pusher moves away from', () => {
    const x1 = model.step(stateWith([-R + 0.001, 0]), -0.05, 0, 1);
    expect(L.sliderPose(x1, 0)).toEqual({ x: 0, y: 0, theta: 0 });
  });
});
