import { beforeAll, describe, expect, it } from 'vitest';
import { RECORD_FLOATS, type Dataset } from '../../src-main/learned/dataset';
import { pushGeometryOf } from '../../src-main/learned/geometry';
import { exportWeights } from '../../src-main/learned/network';
import { sampleTransitionStart } from '../../src-main/learned/sampling';
import { paddedLayout } from '../../src-main/learned/slots';
import { tfBackendReady } from '../../src-main/learned/tf-backend';
import { defaultTrainOptions, trainModel } from '../../src-main/learned/train';
import { Rng } from '../../src-main/common/rng';
import { referenceScene } from '../helpers/scenes';

const geometry = pushGeometryOf(referenceScene('cvs-multi-object'));

/** A small synthetic data set with a learnable rule: every active slider drifts with half the control. */
function syntheticDataset(count: number): Dataset {
  const rng = new Rng(3);
  const records = new Float32Array(count * RECORD_FLOATS);
  const S = paddedLayout.size;
  for (let i = 0; i < count; i++) {
    const n = 1 + (i % 4);
    const t = sampleTransitionStart(rng, geometry, n);
    const end = t.x.slice();
    for (let k = 0; k < n; k++) {
      const p = paddedLayout.posOffset(k);
      end[p] = end[p]! + 0.5 * t.ux;
      end[p + 1] = end[p + 1]! + 0.5 * t.uy;
      paddedLayout.setSlider(end, k, paddedLayout.sliderPose(end, k), {
        vx: 0.5 * t.ux,
        vy: 0.5 * t.uy,
        omega: 0,
      });
    }
    const r = records.subarray(i * RECORD_FLOATS, (i + 1) * RECORD_FLOATS);
    r[0] = n;
    r.set(t.x, 1);
    r[1 + S] = t.ux;
    r[2 + S] = t.uy;
    r.set(end, 3 + S);
  }
  return {
    manifest: {
      format: 'parapush-transitions',
      version: 1,
      encoding: 'float32le',
      recordFloats: RECORD_FLOATS,
      fields: [],
      count,
      dt: 1,
      seed: 3,
      scene: 'synthetic',
      geometry,
      sampling: {},
      sliderCounts: {},
      contact: { count: 0, ratio: 0 },
      sha256: '0'.repeat(64),
      createdAt: '',
      generationSeconds: 0,
      command: '',
    },
    records,
  };
}

describe('trainModel', () => {
  beforeAll(() => tfBackendReady());
  const data = syntheticDataset(96);
  const options = {
    ...defaultTrainOptions,
    seed: 9,
    batchSize: 32,
    validationFraction: 0.25,
    slotShuffles: 0,
  };

  it('learns (validation loss falls), keeps the best epoch and is reproducible from the seed', async () => {
    const a = await trainModel(data, { ...options, epochs: 6, learningRate: 1e-3 });
    expect(a.trainCount).toBe(72);
    expect(a.validationCount).toBe(24);
    expect(a.history).toHaveLength(6);
    const best = Math.min(...a.history.map((e) => e.valLoss));
    expect(a.history[a.bestEpoch - 1]!.valLoss).toBe(best);
    expect(best).toBeLessThan(a.history[0]!.valLoss);
    const b = await trainModel(data, { ...options, epochs: 6, learningRate: 1e-3 });
    expect(Array.from(exportWeights(b.mlp))).toEqual(Array.from(exportWeights(a.mlp)));
  });

  it('adds slot-shuffled copies of multi-slider training transitions only', async () => {
    const r = await trainModel(data, { ...options, epochs: 1, slotShuffles: 2 });
    // 72 training transitions, three in four with 2-4 sliders: about 54 of them get 2 copies each.
    expect(r.trainCount).toBeGreaterThan(72 + 2 * 40);
    expect(r.trainCount).toBeLessThan(72 + 2 * 72);
    expect((r.trainCount - 72) % 2).toBe(0);
    expect(r.validationCount).toBe(24);
  });

  it('stops early after `patience` epochs without a better validation loss', async () => {
    // A learning rate this small cannot change the float32 loss: epoch 1 stays the best.
    const r = await trainModel(data, { ...options, epochs: 50, learningRate: 1e-30, patience: 3 });
    expect(r.stoppedBy).toBe('early-stopping');
    expect(r.bestEpoch).toBe(1);
    expect(r.history).toHaveLength(4);
  });
});
