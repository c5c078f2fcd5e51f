/**
 * Single-step error of coarse models against the fine model on data-set transitions: for every
 * active slider, the distance between its predicted and its fine end position (mm) and the angle
 * between the end orientations (deg), averaged separately over contact and no-contact cases.
 */
import type { Scene } from '#contract/scene';
import { layoutForScene, wrapAngle, type State } from '#contract/state';
import type { CoarsePropagator } from '../parareal/parareal';
import { recordAt, type DatasetManifest } from './dataset';
import { fineSceneFor, isContactCase } from './generate';
import { paddedLayout, unpadState } from './slots';

export interface StepError {
  transitions: number;
  mm: number;
  deg: number;
  contactMm: number;
  contactDeg: number;
  freeMm: number;
  freeDeg: number;
}

/**
 * Errors of the coarse model made by `make` for each slider count, over the first `limit`
 * records. States of the same slider count go through stepBatch together when the model has it.
 */
export function singleStepError(
  dataset: { manifest: Pick<DatasetManifest, 'count' | 'dt' | 'geometry'>; records: Float32Array },
  base: Scene,
  make: (scene: Scene) => CoarsePropagator,
  limit = dataset.manifest.count,
): StepError {
  const { dt, geometry } = dataset.manifest;
  const acc = { all: [0, 0, 0], contact: [0, 0, 0], free: [0, 0, 0] };
  const count = Math.min(limit, dataset.manifest.count);
  const groups = new Map<number, { start: State; end: State; u: [number, number]; contact: boolean }[]>();
  for (let i = 0; i < count; i++) {
    const r = recordAt(dataset.records, i);
    const g = groups.get(r.sliders) ?? [];
    g.push({
      start: r.start,
      end: r.end,
      u: [r.ux, r.uy],
      contact: isContactCase(r.start, r.ux, r.uy, dt, r.sliders, geometry),
    });
    groups.set(r.sliders, g);
  }
  for (const [n, items] of groups) {
    const scene = fineSceneFor(base, n);
    const L = layoutForScene(scene);
    const model = make(scene);
    const starts = items.map((it) => unpadState(it.start, L));
    const predicted = model.stepBatch
      ? model.stepBatch(
          starts,
          items.map((it) => it.u),
          dt,
        )
      : starts.map((x, k) => model.step(x, items[k]!.u[0], items[k]!.u[1], dt));
    items.forEach((it, k) => {
      let mm = 0;
      let deg = 0;
      for (let i = 0; i < n; i++) {
        const p = L.sliderPose(predicted[k]!, i);
        const f = paddedLayout.sliderPose(it.end, i);
        mm += Math.hypot(p.x - f.x, p.y - f.y) * 1000;
        deg += (Math.abs(wrapAngle(p.theta - f.theta)) * 180) / Math.PI;
      }
      for (const a of [acc.all, it.contact ? acc.contact : acc.free]) {
        a[0]! += mm / n;
        a[1]! += deg / n;
        a[2]! += 1;
      }
    });
  }
  const mean = (a: number[], j: number): number => (a[2]! > 0 ? a[j]! / a[2]! : NaN);
  return {
    transitions: count,
    mm: mean(acc.all, 0),
    deg: mean(acc.all, 1),
    contactMm: mean(acc.contact, 0),
    contactDeg: mean(acc.contact, 1),
    freeMm: mean(acc.free, 0),
    freeDeg: mean(acc.free, 1),
  };
}
