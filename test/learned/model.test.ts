import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '#contract/scene';
import { layoutForScene, type State } from '#contract/state';
import { INPUT_SIZE, OUTPUT_SIZE } from '../../src-main/learned/features';
import { fineSceneFor } from '../../src-main/learned/generate';
import { GeometryMismatchError, pushGeometryOf } from '../../src-main/learned/geometry';
import { LearnedCoarseModel } from '../../src-main/learned/learned-coarse-model';
import {
  loadLearnedModel,
  ModelFileError,
  saveLearnedModel,
  WEIGHTS_FILE,
  type LearnedModelFile,
} from '../../src-main/learned/model-file';
import { createMlp, disposeMlp, exportWeights, HIDDEN_UNITS } from '../../src-main/learned/network';
import { sampleTransitionStart } from '../../src-main/learned/sampling';
import { unpadState } from '../../src-main/learned/slots';
import { tfBackendReady } from '../../src-main/learned/tf-backend';
import { Rng } from '../../src-main/common/rng';
import { referenceScene } from '../helpers/scenes';

const base = referenceScene('cvs-multi-object');
const layerSizes = [INPUT_SIZE, ...HIDDEN_UNITS, OUTPUT_SIZE];

/** A randomly initialised model with non-trivial statistics (untrained, but deterministic). */
function randomModel(
  seed: number,
): Omit<LearnedModelFile['meta'], 'weightsSha256' | 'format' | 'version'> & { weights: Float32Array } {
  const mlp = createMlp(INPUT_SIZE, OUTPUT_SIZE, seed);
  const weights = exportWeights(mlp);
  disposeMlp(mlp);
  const rng = new Rng(seed);
  return {
    layerSizes,
    activation: 'relu',
    dt: 1,
    geometry: pushGeometryOf(base),
    normalization: {
      inputMean: Array.from({ length: INPUT_SIZE }, () => rng.between(-0.1, 0.1)),
      inputStd: Array.from({ length: INPUT_SIZE }, () => rng.between(0.05, 0.2)),
      outputMean: Array.from({ length: OUTPUT_SIZE }, () => rng.between(-0.01, 0.01)),
      outputStd: Array.from({ length: OUTPUT_SIZE }, () => rng.between(0.001, 0.01)),
    },
    weights,
  };
}

function starts(scene: Scene, count: number, seed: number): { xs: State[]; us: [number, number][] } {
  const rng = new Rng(seed);
  const L = layoutForScene(scene);
  const xs: State[] = [];
  const us: [number, number][] = [];
  for (let k = 0; k < count; k++) {
    const t = sampleTransitionStart(rng, pushGeometryOf(base), L.sliderCount);
    xs.push(unpadState(t.x, L));
    us.push([t.ux, t.uy]);
  }
  return { xs, us };
}

describe('learned coarse model', () => {
  let dir: string;
  let inMemory: LearnedModelFile;
  beforeAll(async () => {
    await tfBackendReady();
    dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-learned-'));
    const { weights, ...meta } = randomModel(5);
    const saved = saveLearnedModel(dir, meta, weights);
    inMemory = { meta: saved, weights };
  });

  it('save then load gives bit-identical predictions', () => {
    const scene = fineSceneFor(base, 3);
    const { xs, us } = starts(scene, 16, 1);
    const a = new LearnedCoarseModel(scene, inMemory).stepBatch(xs, us, 1);
    const b = LearnedCoarseModel.load(scene, dir).stepBatch(xs, us, 1);
    expect(b.map((s) => Array.from(s))).toEqual(a.map((s) => Array.from(s)));
    // and the model is not a no-op: sliders moved
    const L = layoutForScene(scene);
    expect(Math.max(...a.map((s, r) => L.maxSliderPoseChange(s, xs[r]!).translation))).toBeGreaterThan(1e-4);
  });

  it('batched and one-by-one inference agree', () => {
    for (const n of [1, 2, 4]) {
      const scene = fineSceneFor(base, n);
      const model = new LearnedCoarseModel(scene, inMemory);
      const { xs, us } = starts(scene, 12, 10 + n);
      const batch = model.stepBatch(xs, us, 1);
      xs.forEach((x, r) => {
        const single = model.step(x, us[r]![0], us[r]![1], 1);
        for (let j = 0; j < single.length; j++) expect(single[j]).toBeCloseTo(batch[r]![j]!, 6);
      });
    }
  });

  it('moves the pusher with the command and leaves the input state alone', () => {
    const scene = fineSceneFor(base, 2);
    const model = new LearnedCoarseModel(scene, inMemory);
    const { xs, us } = starts(scene, 1, 3);
    const before = Array.from(xs[0]!);
    const next = model.step(xs[0]!, us[0]![0], us[0]![1], 1);
    expect(Array.from(xs[0]!)).toEqual(before);
    expect(next[0]).toBeCloseTo(before[0]! + us[0]![0], 12);
    expect(next[1]).toBeCloseTo(before[1]! + us[0]![1], 12);
  });

  it('moves only the sliders the push can reach, directly or through another slider', () => {
    const scene = fineSceneFor(base, 3);
    const model = new LearnedCoarseModel(scene, inMemory);
    const L = model.layout;
    const x = L.create();
    L.setPusher(x, -0.2, 0);
    L.setSlider(x, 0, { x: -0.12, y: 0, theta: 0 }); // 15 mm in front of the pusher
    L.setSlider(x, 1, { x: -0.02, y: 0.01, theta: 0 }); // in front of slider 0
    L.setSlider(x, 2, { x: 0.2, y: 0.25, theta: 0.3 }); // out of reach
    expect(model.reachable(x, 0.05, 0, 1)).toEqual([true, true, false]);
    const next = model.step(x, 0.05, 0, 1);
    // The untouched slider keeps its pose and velocity exactly; the random network moves the others.
    expect(L.sliderPose(next, 2)).toEqual(L.sliderPose(x, 2));
    expect(L.sliderVelocity(next, 2)).toEqual(L.sliderVelocity(x, 2));
    expect(L.sliderPose(next, 0)).not.toEqual(L.sliderPose(x, 0));
    // A push away from every slider reaches none.
    expect(model.reachable(x, -0.05, 0, 1)).toEqual([false, false, false]);
  });

  it('refuses scenes it was not trained for and other step lengths', () => {
    const boxes: Scene = {
      ...base,
      sliders: base.sliders.map((s) => ({
        ...s,
        shape: { kind: 'box', sizeX: 0.1, sizeY: 0.1, height: 0.05 },
      })),
    };
    expect(() => new LearnedCoarseModel(boxes, inMemory)).toThrow(GeometryMismatchError);
    const heavier: Scene = { ...base, sliders: base.sliders.map((s) => ({ ...s, mass: 2 })) };
    expect(() => new LearnedCoarseModel(heavier, inMemory)).toThrow(/sliderMass/);
    const model = new LearnedCoarseModel(base, inMemory);
    expect(() => model.step(layoutForScene(base).create(), 0, 0, 0.5)).toThrow(/1 s controls/);
  });

  it('detects corrupted weights', () => {
    const bad = mkdtempSync(path.join(os.tmpdir(), 'parapush-learned-bad-'));
    const { weights, ...meta } = randomModel(6);
    saveLearnedModel(bad, meta, weights);
    writeFileSync(path.join(bad, WEIGHTS_FILE), new Uint8Array(weights.length * 4));
    expect(() => loadLearnedModel(bad)).toThrow(ModelFileError);
  });
});
