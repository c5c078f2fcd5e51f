/**
 * What the network reads and predicts (CVS 2020 Sec. 4), from padded states (see slots.ts).
 *
 * Everything is expressed in the push frame: origin at the pusher, x axis along the commanded
 * velocity u (the table x axis when u = 0). Positions relative to the pusher make the model
 * independent of where on the table the push happens; turning with u makes it independent of the
 * push direction, so a small data set covers every direction (contact then only depends on the
 * slider's cross-track offset and distance ahead, not on their combination with the heading).
 *
 * Input (36 values): for each slot, a flag (1 = slider in use), the slider's position, cos and
 * sin of its angle relative to the push direction, and its velocity (8 x 4); then the pusher's
 * current velocity and the commanded velocity (|u|, 0). A parked slot (see slots.ts) reads as
 * flag 0 and zeros: its far-away position would otherwise stretch the normalised range of that
 * input and crush the millimetre differences that decide contact for the slots in use.
 *
 * Output (24 values): for each slot, the pose change over the step (dx, dy, dtheta wrapped to
 * (-pi, pi]) and the velocity at its end (vx, vy, omega), in the push frame. The pusher itself is
 * not predicted: it follows the commanded velocity exactly, as in the analytical model.
 */
import { wrapAngle, type State } from '#contract/state';
import { MAX_SLIDERS, paddedLayout } from './slots';

export const INPUTS_PER_SLOT = 8;
export const INPUT_SIZE = INPUTS_PER_SLOT * MAX_SLIDERS + 4;
export const OUTPUTS_PER_SLOT = 6;
export const OUTPUT_SIZE = OUTPUTS_PER_SLOT * MAX_SLIDERS;

/** Heading of the push frame: the commanded direction, 0 when the pusher stands still. */
export function pushHeading(ux: number, uy: number): number {
  return ux === 0 && uy === 0 ? 0 : Math.atan2(uy, ux);
}

/** The push frame of control u: its heading phi, and cos and sin of phi. */
interface PushFrame {
  readonly phi: number;
  readonly c: number;
  readonly s: number;
}

function pushFrame(ux: number, uy: number): PushFrame {
  const phi = pushHeading(ux, uy);
  return { phi, c: Math.cos(phi), s: Math.sin(phi) };
}

/** Writes the table-frame vector (x, y) in push frame f into out[o], out[o + 1]. */
function writeInPushFrame(f: PushFrame, x: number, y: number, out: Float32Array, o: number): void {
  out[o] = f.c * x + f.s * y;
  out[o + 1] = -f.s * x + f.c * y;
}

/**
 * Writes the input features of padded state x (first `activeSlots` slots in use) under control u
 * into out[offset..offset+32).
 */
export function encodeInput(
  x: State,
  ux: number,
  uy: number,
  activeSlots: number,
  out: Float32Array,
  offset = 0,
): void {
  const L = paddedLayout;
  const f = pushFrame(ux, uy);
  const [px, py] = L.pusherPosition(x);
  for (let i = 0; i < MAX_SLIDERS; i++) {
    const o = offset + INPUTS_PER_SLOT * i;
    out.fill(0, o, o + INPUTS_PER_SLOT);
    if (i >= activeSlots) continue;
    const p = L.posOffset(i);
    const v = L.velOffset(i);
    out[o] = 1;
    writeInPushFrame(f, x[p]! - px, x[p + 1]! - py, out, o + 1);
    out[o + 3] = Math.cos(x[p + 2]! - f.phi);
    out[o + 4] = Math.sin(x[p + 2]! - f.phi);
    writeInPushFrame(f, x[v]!, x[v + 1]!, out, o + 5);
    out[o + 7] = x[v + 2]!;
  }
  const [pvx, pvy] = L.pusherVelocity(x);
  const o = offset + INPUTS_PER_SLOT * MAX_SLIDERS;
  writeInPushFrame(f, pvx, pvy, out, o);
  out[o + 2] = Math.hypot(ux, uy);
  out[o + 3] = 0;
}

/** Index of slot i's in-use flag in the input; its position follows at +1, +2. */
export function slotInputOffset(i: number): number {
  return INPUTS_PER_SLOT * i;
}

/** Writes the training target of the transition x -> next under control u into out[offset..offset+24). */
export function encodeTarget(
  x: State,
  next: State,
  ux: number,
  uy: number,
  out: Float32Array,
  offset = 0,
): void {
  const L = paddedLayout;
  const f = pushFrame(ux, uy);
  for (let i = 0; i < MAX_SLIDERS; i++) {
    const p = L.posOffset(i);
    const v = L.velOffset(i);
    const o = offset + OUTPUTS_PER_SLOT * i;
    writeInPushFrame(f, next[p]! - x[p]!, next[p + 1]! - x[p + 1]!, out, o);
    out[o + 2] = wrapAngle(next[p + 2]! - x[p + 2]!);
    writeInPushFrame(f, next[v]!, next[v + 1]!, out, o + 3);
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
  const { c, s } = pushFrame(ux, uy);
  if (out !== x) out.set(x);
  for (let i = 0; i < activeSlots; i++) {
    const p = L.posOffset(i);
    const v = L.velOffset(i);
    const o = offset + OUTPUTS_PER_SLOT * i;
    out[p] = x[p]! + c * y[o]! - s * y[o + 1]!;
    out[p + 1] = x[p + 1]! + s * y[o]! + c * y[o + 1]!;
    out[p + 2] = wrapAngle(x[p + 2]! + y[o + 2]!);
    out[v] = c * y[o + 3]! - s * y[o + 4]!;
    out[v + 1] = s * y[o + 3]! + c * y[o + 4]!;
    out[v + 2] = y[o + 5]!;
  }
  const [px, py] = L.pusherPosition(x);
  L.setPusher(out, px + ux * dt, py + uy * dt, ux, uy);
  return out;
}
