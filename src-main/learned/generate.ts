/**
 * Transition data from the fine model (CVS 2020 Sec. 4), run as one-control fine jobs on the
 * worker pool. Start states are drawn in order from one seeded stream before any job runs, and
 * results are stored by index, so the data set depends only on the seed and the settings, not on
 * which worker finished first.
 *
 * Each slider count gets its own fine scene with only the active sliders: parked sliders are far
 * away and never touched, so simulating them would only cost time. Their end state is their
 * start state.
 */
import { performance } from 'node:perf_hooks';
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import type { FineRunner } from '../parareal/parareal';
import { Rng } from '../common/rng';
import { firstTouch } from '#physics/geometry2d';
import { pushGeometryOf, type PushGeometry } from './geometry';
import { RECORD_FLOATS, type DatasetManifest } from './dataset';
import { defaultSamplingSettings, sampleTransitionStart, type SamplingSettings } from './sampling';
import { MAX_SLIDERS, padState, paddedLayout, unpadState } from './slots';

export interface GenerateOptions {
  count: number;
  seed: number;
  dt: number;
  /** Share of transitions with 1, 2, 3 and 4 sliders (normalised). */
  sliderMix: readonly number[];
  sampling?: SamplingSettings;
  /** Jobs kept in flight at once (bounds memory; large enough to keep every worker busy). */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
  /** The command line recorded in the manifest, for reproduction. */
  command: string;
}

export interface FinePoolLike extends FineRunner {
  registerScene(scene: Scene): string;
}

/** The scene the fine model runs for `n` identical sliders of the base scene's geometry. */
export function fineSceneFor(base: Scene, n: number): Scene {
  // Motion-capture names do not matter to the physics; poses are overwritten by each job's state.
  const { rigidBody: _unused, ...proto } = base.sliders[0]!;
  return {
    ...base,
    name: `${base.name}-learned-${n}`,
    obstacles: [],
    sliders: Array.from({ length: n }, (_, i) => ({ ...proto, id: `s${i}`, pose: { x: 0, y: 0, theta: 0 } })),
    goal: { ...base.goal, slider: 's0' },
  };
}

/** True when the pusher's straight path over the step meets an active slider at its start pose. */
export function isContactCase(
  x: Float64Array,
  ux: number,
  uy: number,
  dt: number,
  sliders: number,
  g: PushGeometry,
): boolean {
  const L = paddedLayout;
  const [px, py] = L.pusherPosition(x);
  for (let i = 0; i < sliders; i++) {
    const body = { footprint: { kind: 'disc' as const, radius: g.sliderRadius }, ...L.sliderPose(x, i) };
    if (firstTouch(px, py, ux * dt, uy * dt, g.pusherRadius, body) !== null) return true;
  }
  return false;
}

export async function generateTransitions(
  base: Scene,
  pool: FinePoolLike,
  o: GenerateOptions,
): Promise<{
  records: Float32Array;
  manifest: Omit<
    DatasetManifest,
    'sha256' | 'count' | 'format' | 'version' | 'encoding' | 'recordFloats' | 'fields'
  >;
}> {
  const t0 = performance.now();
  const geometry = pushGeometryOf(base);
  const sampling = o.sampling ?? defaultSamplingSettings;
  if (o.sliderMix.length !== MAX_SLIDERS || o.sliderMix.some((w) => !(w >= 0)))
    throw new Error(`slider mix: ${MAX_SLIDERS} non-negative weights expected`);
  const mixTotal = o.sliderMix.reduce((a, b) => a + b, 0);
  if (!(mixTotal > 0)) throw new Error('slider mix: at least one weight must be positive');
  const scenes = Array.from({ length: MAX_SLIDERS }, (_, i) => fineSceneFor(base, i + 1));
  const keys = scenes.map((s) => pool.registerScene(s));
  const layouts = scenes.map((s) => layoutForScene(s));
  const rng = new Rng(o.seed);
  const records = new Float32Array(o.count * RECORD_FLOATS);
  const sliderCounts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0 };
  let contacts = 0;
  const chunk = o.chunk ?? 256;
  for (let c0 = 0; c0 < o.count; c0 += chunk) {
    const jobs: Promise<void>[] = [];
    for (let i = c0; i < Math.min(o.count, c0 + chunk); i++) {
      let pick = rng.uniform() * mixTotal;
      let n = 1;
      while (n < MAX_SLIDERS && pick >= o.sliderMix[n - 1]!) {
        pick -= o.sliderMix[n - 1]!;
        n++;
      }
      const start = sampleTransitionStart(rng, geometry, n, sampling);
      sliderCounts[String(n)]!++;
      if (isContactCase(start.x, start.ux, start.uy, o.dt, n, geometry)) contacts++;
      const L = layouts[n - 1]!;
      const job = pool
        .run({
          sceneKey: keys[n - 1]!,
          x: unpadState(start.x, L),
          controls: [[start.ux, start.uy]],
          dt: o.dt,
        })
        .then((r) => {
          const end = padState(r.states[0]!, L);
          const rec = records.subarray(i * RECORD_FLOATS, (i + 1) * RECORD_FLOATS);
          rec[0] = n;
          rec.set(start.x, 1);
          rec[1 + paddedLayout.size] = start.ux;
          rec[2 + paddedLayout.size] = start.uy;
          rec.set(end, 3 + paddedLayout.size);
        });
      jobs.push(job);
    }
    await Promise.all(jobs);
    o.onProgress?.(Math.min(o.count, c0 + chunk), o.count);
  }
  return {
    records,
    manifest: {
      dt: o.dt,
      seed: o.seed,
      scene: base.name,
      fine: base.fine,
      geometry,
      sampling: { ...sampling },
      sliderCounts,
      contact: { count: contacts, ratio: contacts / o.count },
      createdAt: new Date().toISOString(),
      generationSeconds: (performance.now() - t0) / 1000,
      command: o.command,
    },
  };
}
