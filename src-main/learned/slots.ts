/**
 * The learned model always sees four slider slots (CVS 2020 Sec. 4): a scene with fewer sliders
 * fills the unused slots with sliders parked at fixed places far outside the workspace, where the
 * pusher never reaches them. One network then serves scenes of 1 to 4 sliders.
 */
import { StateLayout, type State } from '#contract/state';

export const MAX_SLIDERS = 4;

/** Layout of a state with all four slots (4 + 6 * 4 = 28 values). */
export const paddedLayout = new StateLayout(['slot0', 'slot1', 'slot2', 'slot3']);

/** Where unused slots rest: 1.5 m out on the diagonals, well off any table in the lab. */
export const parkingPlaces: readonly { x: number; y: number }[] = [
  { x: 1.5, y: 1.5 },
  { x: 1.5, y: -1.5 },
  { x: -1.5, y: 1.5 },
  { x: -1.5, y: -1.5 },
];

/** Copies a state of `layout` into the padded layout, parking the unused slots. */
export function padState(x: State, layout: StateLayout, out: State = paddedLayout.create()): State {
  const n = layout.sliderCount;
  if (n > MAX_SLIDERS) throw new Error(`the learned model handles at most ${MAX_SLIDERS} sliders, got ${n}`);
  const [px, py] = layout.pusherPosition(x);
  const [vx, vy] = layout.pusherVelocity(x);
  paddedLayout.setPusher(out, px, py, vx, vy);
  for (let i = 0; i < MAX_SLIDERS; i++) {
    if (i < n) paddedLayout.setSlider(out, i, layout.sliderPose(x, i), layout.sliderVelocity(x, i));
    else paddedLayout.setSlider(out, i, { ...parkingPlaces[i]!, theta: 0 });
  }
  return out;
}

/** The first `layout.sliderCount` slots of a padded state, in `layout`. */
export function unpadState(padded: State, layout: StateLayout, out: State = layout.create()): State {
  const [px, py] = paddedLayout.pusherPosition(padded);
  const [vx, vy] = paddedLayout.pusherVelocity(padded);
  layout.setPusher(out, px, py, vx, vy);
  for (let i = 0; i < layout.sliderCount; i++) {
    layout.setSlider(out, i, paddedLayout.sliderPose(padded, i), paddedLayout.sliderVelocity(padded, i));
  }
  return out;
}
