import { beforeAll, describe, expect, it } from 'vitest';
import { INPUT_SIZE, OUTPUT_SIZE, OUTPUTS_PER_SLOT, slotInputOffset } from '../../src-main/learned/features';
import type { PushGeometry } from '../../src-main/learned/geometry';
import { PENETRATION_ALLOWANCE, penetrationPenalty, trainingLoss } from '../../src-main/learned/loss';
import { tf, tfBackendReady } from '../../src-main/learned/tf-backend';

const g: PushGeometry = {
  pusherRadius: 0.01,
  sliderRadius: 0.05,
  sliderHeight: 0.02,
  sliderMass: 0.5,
  sliderFriction: 0.2,
  tableFriction: 0.8,
};

/** One raw input row: slots in use at these positions relative to the pusher (the rest parked) and a control. */
function row(slots: [number, number][], u: [number, number]): number[] {
  const r = new Array<number>(INPUT_SIZE).fill(0);
  slots.forEach(([x, y], i) => {
    const o = slotInputOffset(i);
    r[o] = 1;
    r[o + 1] = x;
    r[o + 2] = y;
    r[o + 3] = 1;
  });
  r[INPUT_SIZE - 2] = u[0];
  r[INPUT_SIZE - 1] = u[1];
  return r;
}

function moves(deltas: [number, number][]): number[] {
  const r = new Array<number>(OUTPUT_SIZE).fill(0);
  deltas.forEach(([dx, dy], i) => {
    r[OUTPUTS_PER_SLOT * i] = dx;
    r[OUTPUTS_PER_SLOT * i + 1] = dy;
  });
  return r;
}

const values = (t: { pusherSlider: tf.Scalar; sliderSlider: tf.Scalar }): [number, number] => [
  t.pusherSlider.dataSync()[0]!,
  t.sliderSlider.dataSync()[0]!,
];

describe('penetration penalty', () => {
  beforeAll(() => tfBackendReady());

  it('is zero for separated bodies and within the allowance', () => {
    const reach = g.sliderRadius + g.pusherRadius;
    const inputs = tf.tensor2d([
      row([[reach + 0.01, 0]], [0, 0]),
      row([[reach - PENETRATION_ALLOWANCE / 2, 0]], [0, 0]),
      row(
        [
          [0.3, 0],
          [0.3 + 2 * g.sliderRadius, 0],
        ],
        [0.05, 0],
      ),
    ]);
    const out = tf.tensor2d([moves([]), moves([]), moves([])]);
    expect(values(penetrationPenalty(inputs, out, g, 1))).toEqual([0, 0]);
  });

  it('ignores parked slots, whose zero features would otherwise sit on the pusher', () => {
    const inputs = tf.tensor2d([row([], [0.05, 0])]);
    expect(values(penetrationPenalty(inputs, tf.tensor2d([moves([])]), g, 1))).toEqual([0, 0]);
  });

  it('is the squared depth in mm beyond the allowance, after the step, averaged over the batch', () => {
    const reach = g.sliderRadius + g.pusherRadius;
    // Row 1: the pusher moves 20 mm towards a slider 10 mm beyond contact, which does not move:
    // 10 mm deep at the end. Row 2: two sliders, slider 1 moved 3 mm into slider 0.
    const inputs = tf.tensor2d([
      row([[reach + 0.01, 0]], [0.02, 0]),
      row(
        [
          [0.3, 0],
          [0.3 + 2 * g.sliderRadius, 0.2],
        ],
        [0, 0],
      ),
    ]);
    const out = tf.tensor2d([
      moves([[0, 0]]),
      moves([
        [0, 0],
        [-0.003, -0.2],
      ]),
    ]);
    const [ps, ss] = values(penetrationPenalty(inputs, out, g, 1));
    const d1 = (0.01 - PENETRATION_ALLOWANCE) * 1000;
    const d2 = (0.003 - PENETRATION_ALLOWANCE) * 1000;
    expect(ps).toBeCloseTo((d1 * d1) / 2, 3);
    expect(ss).toBeCloseTo((d2 * d2) / 2, 3);
  });

  it('adds to the MSE with its weight, and its gradient pushes the slider out of the pusher', () => {
    const reach = g.sliderRadius + g.pusherRadius;
    const raw = tf.tensor2d([row([[reach + 0.01, 0]], [0.02, 0])]);
    const target = tf.tensor2d([moves([[0.01, 0]])]);
    const mean = tf.zeros([OUTPUT_SIZE]) as tf.Tensor1D;
    const std = tf.ones([OUTPUT_SIZE]) as tf.Tensor1D;
    const pred = tf.variable(tf.tensor2d([moves([[0, 0]])]));
    const l0 = trainingLoss(pred, target, raw, mean, std, g, 1, 0);
    const l1 = trainingLoss(pred, target, raw, mean, std, g, 1, 0.5);
    const mse = (0.01 * 0.01) / OUTPUT_SIZE;
    expect(l0.total.dataSync()[0]).toBeCloseTo(mse, 9);
    const depth = (0.01 - PENETRATION_ALLOWANCE) * 1000;
    expect(l1.total.dataSync()[0]).toBeCloseTo(mse + 0.5 * depth * depth, 3);
    const grad = tf.grad(
      (p: tf.Tensor) => trainingLoss(p as tf.Tensor2D, target, raw, mean, std, g, 1, 0.5).total,
    )(pred);
    expect(grad.dataSync()[0]).toBeLessThan(0); // increasing dx (moving the slider away) lowers the loss
  });
});
