/**
 * What the network reads and predicts (CVS 2020 Sec. 4), from padded states (see slots.ts).
 *
 * Input (32 values): for each slot, the slider's position relative to the pusher, cos and sin of
 * its angle and its velocity (7 x 4); then the pusher's current velocity and the commanded
 * velocity. Positions relative to the pusher make the model independent of where on the table
 * the push happens.
 *
 * Output (24 values): for each slot, the pose change over the step (dx, dy, dtheta wrapped to
 * (-pi, pi]) and the velocity at its end (vx, vy, omega). The pusher itself is not predicted: it
 * follows the commanded velocity exactly, as in the analytical model.
 */
import { wrapAngle, type State } from '../contract/state';
import { MAX_SLIDERS, paddedLayout } from './slots';

export const INPUTS_PER_SLOT = 7;
export const INPUT_SIZE = INPUTS_PER_SLOT * MAX_SLIDERS + 4;
export const OUTPUTS_PER_SLOT = 6;
export const OUTPUT_SIZE = OUTPUTS_PER_SLOT * MAX_SLIDERS;

/** Writes the input features of padded state x under control u into out[offset..offset+32). */
export function encodeInput(x: State, ux: number, uy: number, out: Float32Array, offset = 0): void {
  const L = paddedLayout;
  const [px, py] = L.pusherPosition(x);
  for (let i = 0; i < MAX_SLIDERS; i++) {
    const p = L.posOffset(i);
    const v = L.velOffset(i);
    const o = offset + INPUTS_PER_SLOT * i;
    out[o] = x[p]! - px;
    out[o + 1] = x[p + 1]! - py;
    out[o + 2] = Math.cos(x[p + 2]!);
    out[o + 3] = Math.sin(x[p + 2]!);
    out[o + 4] = x[v]!;
    out[o + 5] = x[v + 1]!;
    out[o + 6] = x[v + 2]!;
  }
  const [pvx, pvy] = L.pusherVelocity(x);
  const o = offset + INPUTS_PER_SLOT * MAX_SLIDERS;
  out[o] = pvx;
  out[o + 1] = pvy;
  out[o + 2] = ux;
  out[o + 3] = uy;
}

/** Writes the training target of the transition x -> next into out[offset..offset+24). */
export function encodeTarget(x: State, next: State, out: Float32Array, offset = 0): void {
  const L = paddedLayout;
  for (let i = 0; i < MAX_SLIDERS; i++) {
    const p = L.posOffset(i);
    const v = L.velOffset(i);
    const o = offset + OUTPUTS_PER_SLOT * i;
    out[o] = next[p]! - x[p]!;
    out[o + 1] = next[p + 1]! - x[p + 1]!;
    out[o + 2] = wrapAngle(next[p + 2]! - x[p + 2]!);
    out[o + 3] = next[v]!;
    out[o + 4] = next[v + 1]!;
    out[o + 5] = next[v + 2]!;
  }
}

/**
 * The padded state after the step, from x, the control and the network's (denormalised) output
 * read at y[offset..offset+24). Only the first `activeSlots` slots move: parked slots stay put.
 */
export function applyOutput(
  x: State,
  ux: number,
  uy: number,
  dt: number,
  y: ArrayLike<number>,
  offset: number,
  activeSlots: number,
  out: State,
): State {
  const L = paddedLayout;
  if (out !== x) out.set(x);
  for (let i = 0; i < activeSlots; i++) {
    const p = L.posOffset(i);
    const v = L.velOffset(i);
    const o = offset + OUTPUTS_PER_SLOT * i;
    out[p] = x[p]! + y[o]!;
    out[p + 1] = x[p + 1]! + y[o + 1]!;
    out[p + 2] = wrapAngle(x[p + 2]! + y[o + 2]!);
    out[v] = y[o + 3]!;
    out[v + 1] = y[o + 4]!;
    out[v + 2] = y[o + 5]!;
  }
  const [px, py] = L.pusherPosition(x);
  L.setPusher(out, px + ux * dt, py + uy * dt, ux, uy);
  return out;
}
