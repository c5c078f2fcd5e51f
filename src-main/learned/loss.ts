/**
 * Training loss (CVS 2020 Sec. 4): mean squared error of the normalised outputs plus penalties for
 * predicted states in which the pusher overlaps a slider or two sliders overlap.
 *
 * Penetration is measured after the step, in the pusher's start frame (the input features are
 * relative to the pusher): slider i ends at rel_i + dpos_i, the pusher at u * dt. Depths are
 * in millimetres beyond a 0.5 mm allowance (MuJoCo's soft contacts rest slightly overlapped, as
 * the fine data itself shows), squared and summed over pairs, averaged over the batch.
 */
import type { PushGeometry } from './geometry';
import { INPUTS_PER_SLOT, OUTPUTS_PER_SLOT, slotInputOffset } from './features';
import { MAX_SLIDERS } from './slots';
import { tf } from './tf-backend';

/** Overlap allowed before the penalty starts (m); matches the infeasible-state projection. */
export const PENETRATION_ALLOWANCE = 5e-4;

export interface PenetrationTerms {
  pusherSlider: tf.Scalar;
  sliderSlider: tf.Scalar;
}

/**
 * Penalties for a batch of raw (not normalised) input features and denormalised outputs.
 * Parked slots (flag 0) never contribute.
 */
export function penetrationPenalty(
  rawInput: tf.Tensor2D,
  output: tf.Tensor2D,
  geometry: PushGeometry,
  dt: number,
): PenetrationTerms {
  return tf.tidy(() => {
    const col = (t: tf.Tensor2D, c: number): tf.Tensor1D =>
      t.slice([0, c], [-1, 1]).reshape([-1]) as tf.Tensor1D;
    const uCol = INPUTS_PER_SLOT * MAX_SLIDERS + 2; // commanded velocity along the push frame
    const pusherX = tf.mul(col(rawInput, uCol), dt) as tf.Tensor1D;
    const pusherY = tf.mul(col(rawInput, uCol + 1), dt) as tf.Tensor1D;
    const ends: [tf.Tensor1D, tf.Tensor1D][] = [];
    const inUse: tf.Tensor1D[] = [];
    for (let i = 0; i < MAX_SLIDERS; i++) {
      const o = slotInputOffset(i);
      inUse.push(col(rawInput, o));
      ends.push([
        tf.add(col(rawInput, o + 1), col(output, OUTPUTS_PER_SLOT * i)) as tf.Tensor1D,
        tf.add(col(rawInput, o + 2), col(output, OUTPUTS_PER_SLOT * i + 1)) as tf.Tensor1D,
      ]);
    }
    const depthSquaredMm = (
      ax: tf.Tensor1D,
      ay: tf.Tensor1D,
      bx: tf.Tensor1D,
      by: tf.Tensor1D,
      reach: number,
    ): tf.Tensor1D => {
      const dist = tf.sqrt(tf.add(tf.add(tf.square(tf.sub(ax, bx)), tf.square(tf.sub(ay, by))), 1e-12));
      const depth = tf.relu(tf.sub(reach - PENETRATION_ALLOWANCE, dist));
      return tf.square(tf.mul(depth, 1000)) as tf.Tensor1D;
    };
    const R = geometry.sliderRadius;
    let ps = tf.zerosLike(pusherX) as tf.Tensor1D;
    let ss = tf.zerosLike(pusherX) as tf.Tensor1D;
    for (let i = 0; i < ends.length; i++) {
      const [xi, yi] = ends[i]!;
      const pusherDepth = depthSquaredMm(xi, yi, pusherX, pusherY, R + geometry.pusherRadius);
      ps = tf.add(ps, tf.mul(inUse[i]!, pusherDepth)) as tf.Tensor1D;
      for (let j = i + 1; j < ends.length; j++) {
        const [xj, yj] = ends[j]!;
        const both = tf.mul(inUse[i]!, inUse[j]!);
        ss = tf.add(ss, tf.mul(both, depthSquaredMm(xi, yi, xj, yj, 2 * R))) as tf.Tensor1D;
      }
    }
    return { pusherSlider: tf.mean(ps) as tf.Scalar, sliderSlider: tf.mean(ss) as tf.Scalar };
  });
}

export interface LossTerms {
  total: tf.Scalar;
  mse: tf.Scalar;
  penetration: tf.Scalar;
}

/**
 * MSE on normalised outputs + weight * (pusher-slider + slider-slider penalty). The output
 * statistics undo the normalisation inside the graph so the penalty's gradient reaches the net.
 */
export function trainingLoss(
  predictedNorm: tf.Tensor2D,
  targetNorm: tf.Tensor2D,
  rawInput: tf.Tensor2D,
  outputMean: tf.Tensor1D,
  outputStd: tf.Tensor1D,
  geometry: PushGeometry,
  dt: number,
  penetrationWeight: number,
): LossTerms {
  return tf.tidy(() => {
    const mse = tf.mean(tf.square(tf.sub(predictedNorm, targetNorm))) as tf.Scalar;
    if (penetrationWeight === 0) return { total: mse, mse, penetration: tf.scalar(0) };
    const output = tf.add(tf.mul(predictedNorm, outputStd), outputMean) as tf.Tensor2D;
    const p = penetrationPenalty(rawInput, output, geometry, dt);
    const penetration = tf.add(p.pusherSlider, p.sliderSlider) as tf.Scalar;
    return { total: tf.add(mse, tf.mul(penetration, penetrationWeight)) as tf.Scalar, mse, penetration };
  });
}
