/**
 * Random start states and controls for training transitions (CVS 2020 Sec. 4): sliders and pusher
 * placed by rejection sampling so that nothing penetrates, random velocities, and a pusher
 * velocity |u| <= maxSpeed held for one step.
 *
 * Most samples put the pusher close to a slider and aim it roughly at it, so that contact cases
 * are frequent (uniform placement almost never touches anything); sliders are often placed next
 * to each other so slider-slider contact is learned too. The rest are uniform: no-contact cases
 * teach the model that untouched sliders stay put.
 */
import type { State } from '#contract/state';
import type { Rng } from '../common/rng';
import type { PushGeometry } from './geometry';
import { paddedLayout, parkingPlaces, MAX_SLIDERS } from './slots';

export interface SamplingSettings {
  /** Half extents of the region sliders and pusher are placed in (m). */
  halfX: number;
  halfY: number;
  /** Largest pusher speed, commanded and initial (m/s). */
  maxSpeed: number;
  /** Probability that the pusher starts near a slider and heads roughly towards it. */
  nearProbability: number;
  /** Probability that a slider is placed next to one already placed. */
  clusterProbability: number;
  /** Probability that a slider starts moving. */
  movingProbability: number;
  /** Largest initial slider angular speed (rad/s). */
  maxOmega: number;
}

export const defaultSamplingSettings: SamplingSettings = {
  halfX: 0.3,
  halfY: 0.2,
  maxSpeed: 0.1,
  nearProbability: 0.8,
  clusterProbability: 0.5,
  movingProbability: 0.3,
  maxOmega: 0.5,
};

export interface TransitionStart {
  /** Padded state (see slots.ts). */
  x: State;
  ux: number;
  uy: number;
}

function inDisc(rng: Rng, radius: number): [number, number] {
  const r = radius * Math.sqrt(rng.uniform());
  const a = rng.between(-Math.PI, Math.PI);
  return [r * Math.cos(a), r * Math.sin(a)];
}

/** A non-penetrating start with `sliders` active slots and a control; deterministic in rng. */
export function sampleTransitionStart(
  rng: Rng,
  geometry: PushGeometry,
  sliders: number,
  s: SamplingSettings = defaultSamplingSettings,
): TransitionStart {
  if (sliders < 1 || sliders > MAX_SLIDERS) throw new Error(`1 to ${MAX_SLIDERS} sliders, got ${sliders}`);
  const R = geometry.sliderRadius;
  const rp = geometry.pusherRadius;
  const inside = (x: number, y: number): boolean => Math.abs(x) <= s.halfX && Math.abs(y) <= s.halfY;
  for (;;) {
    const pos: [number, number][] = [];
    for (let i = 0; i < sliders; i++) {
      if (i > 0 && rng.uniform() < s.clusterProbability) {
        const [bx, by] = pos[Math.floor(rng.uniform() * i)]!;
        const a = rng.between(-Math.PI, Math.PI);
        const d = 2 * R + rng.between(0, 0.04);
        pos.push([bx + d * Math.cos(a), by + d * Math.sin(a)]);
      } else pos.push([rng.between(-s.halfX, s.halfX), rng.between(-s.halfY, s.halfY)]);
    }
    const near = rng.uniform() < s.nearProbability;
    let px: number;
    let py: number;
    let aim = 0;
    if (near) {
      const [tx, ty] = pos[Math.floor(rng.uniform() * sliders)]!;
      const a = rng.between(-Math.PI, Math.PI);
      const d = R + rp + rng.between(0, 0.08);
      px = tx + d * Math.cos(a);
      py = ty + d * Math.sin(a);
      aim = Math.atan2(ty - py, tx - px);
    } else {
      px = rng.between(-s.halfX, s.halfX);
      py = rng.between(-s.halfY, s.halfY);
    }
    let ok = pos.every(([x, y]) => inside(x, y) && Math.hypot(x - px, y - py) >= R + rp);
    for (let i = 0; ok && i < sliders; i++)
      for (let j = i + 1; ok && j < sliders; j++)
        ok = Math.hypot(pos[i]![0] - pos[j]![0], pos[i]![1] - pos[j]![1]) >= 2 * R;
    if (!ok) continue;

    const L = paddedLayout;
    const x = L.create();
    const [pvx, pvy] = rng.uniform() < 0.5 ? [0, 0] : inDisc(rng, s.maxSpeed);
    L.setPusher(x, px, py, pvx, pvy);
    for (let i = 0; i < MAX_SLIDERS; i++) {
      if (i >= sliders) {
        L.setSlider(x, i, { ...parkingPlaces[i]!, theta: 0 });
        continue;
      }
      const moving = rng.uniform() < s.movingProbability;
      const [vx, vy] = moving ? inDisc(rng, s.maxSpeed) : [0, 0];
      const omega = moving ? rng.between(-s.maxOmega, s.maxOmega) : 0;
      L.setSlider(
        x,
        i,
        { x: pos[i]![0], y: pos[i]![1], theta: rng.between(-Math.PI, Math.PI) },
        { vx, vy, omega },
      );
    }
    let ux: number;
    let uy: number;
    if (near) {
      const a = aim + rng.between(-1.2, 1.2);
      const speed = s.maxSpeed * Math.sqrt(rng.uniform());
      ux = speed * Math.cos(a);
      uy = speed * Math.sin(a);
    } else [ux, uy] = inDisc(rng, s.maxSpeed);
    return { x, ux, uy };
  }
}
