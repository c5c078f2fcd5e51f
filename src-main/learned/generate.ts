/**
 * Transition data from the fine model (CVS 2020 Sec. 4), run as one-control fine jobs on the
 * worker pool, in fixed-size blocks. Block b draws its start states from its own stream, seeded
 * from (seed, b), and results are stored by index, so a block's bytes depend only on the seed,
 * the block index and the settings: not on which worker finished first, nor on which other
 * blocks were made, where or in what order. That is what lets a long generation resume and be
 * spread over machines (blocks.ts keeps the blocks on disk). The first k transitions of a block
 * are the same whatever its length, so a short last block is a prefix of the full one.
 *
 * The same determinism makes a job safe to run again: a job whose worker stalled past the pool's
 * timeout or died is retried on a fresh worker (a few times, then the block fails naming itself and
 * the transition), so a slow moment on a busy machine does not end a generation of hours. A job
 * the worker fails (a bad scene, a non-finite state) fails the block at once.
 *
 * Each slider count gets its own fine scene with only the active sliders: parked sliders are far
 * away and never touched, so simulating them would only cost time. Their end state is their
 * start state.
 */
import { monotonicSeconds } from '../common/clock';
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import type { FineRunner } from '../parareal/parareal';
import { FineJobError, type FineJobInput, type FineRunOptions } from '../parareal/fine-pool';
import type { FineResult } from '#contract/worker-protocol';
import { deriveSeed, Rng } from '../common/rng';
import { firstTouch } from '#physics/geometry2d';
import { pushGeometryOf, type PushGeometry } from './geometry';
import { RECORD_FLOATS } from './dataset';
import { defaultSamplingSettings, sampleTransitionStart, type SamplingSettings } from './sampling';
import { MAX_SLIDERS, padState, paddedLayout, unpadState } from './slots';

export interface FinePoolLike extends FineRunner {
  registerScene(scene: Scene): string;
  run(job: FineJobInput, signal?: AbortSignal, options?: FineRunOptions): Promise<FineResult>;
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

/**
 * Transitions per block by default: about 25 s of fine-model work with two workers, so a killed
 * run loses little, and 500 blocks for half a million transitions.
 */
export const DEFAULT_BLOCK_SIZE = 1000;

/** What decides a block's content, besides its index (recorded with every data set). */
export interface GenerationSettings {
  seed: number;
  /** s, how long each control is held. */
  dt: number;
  /** Share of transitions with 1, 2, 3 and 4 sliders (normalised when drawn). */
  sliderMix: number[];
  /** Transitions per block. */
  blockSize: number;
  /** Name of the scene the geometry came from. */
  scene: string;
  fine: Scene['fine'];
  geometry: PushGeometry;
  sampling: SamplingSettings;
}

/** The settings a run on `base` makes blocks with; throws on a bad slider mix or geometry. */
export function generationSettings(
  base: Scene,
  o: {
    seed: number;
    dt: number;
    sliderMix: readonly number[];
    blockSize: number;
    sampling?: SamplingSettings;
  },
): GenerationSettings {
  if (o.sliderMix.length !== MAX_SLIDERS || o.sliderMix.some((w) => !(w >= 0)))
    throw new Error(`slider mix: ${MAX_SLIDERS} non-negative weights expected`);
  if (!(o.sliderMix.reduce((a, b) => a + b, 0) > 0))
    throw new Error('slider mix: at least one weight must be positive');
  if (!Number.isInteger(o.blockSize) || o.blockSize < 1) throw new Error('block size: a whole number >= 1');
  return {
    seed: o.seed,
    dt: o.dt,
    sliderMix: [...o.sliderMix],
    blockSize: o.blockSize,
    scene: base.name,
    fine: base.fine,
    geometry: pushGeometryOf(base),
    sampling: { ...(o.sampling ?? defaultSamplingSettings) },
  };
}

export interface Block {
  index: number;
  /** RECORD_FLOATS per transition (dataset.ts). */
  records: Float32Array;
  sliderCounts: Record<string, number>;
  /** Indices (within the block) of the transitions whose push meets a slider. */
  contacts: number[];
  /** Wall time spent making the block, s. */
  seconds: number;
}

/** Runs blocks of one setting on a pool: the fine scenes are registered once. */
export class BlockGenerator {
  private readonly keys: string[];
  private readonly layouts: ReturnType<typeof layoutForScene>[];

  constructor(
    base: Scene,
    private readonly pool: FinePoolLike,
    private readonly settings: GenerationSettings,
  ) {
    const scenes = Array.from({ length: MAX_SLIDERS }, (_, i) => fineSceneFor(base, i + 1));
    this.keys = scenes.map((s) => pool.registerScene(s));
    this.layouts = scenes.map((s) => layoutForScene(s));
  }

  /** The first `count` transitions (at most the block size) of block `index`. */
  async make(index: number, count: number, signal?: AbortSignal): Promise<Block> {
    const s = this.settings;
    if (!Number.isInteger(count) || count < 1 || count > s.blockSize)
      throw new Error(`block ${index}: 1 to ${s.blockSize} transitions, asked for ${count}`);
    const t0 = monotonicSeconds();
    const mixTotal = s.sliderMix.reduce((a, b) => a + b, 0);
    const rng = new Rng(deriveSeed(s.seed, `block-${index}`));
    const records = new Float32Array(count * RECORD_FLOATS);
    const sliderCounts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0 };
    const contacts: number[] = [];
    const jobs: Promise<void>[] = [];
    // The first failure fails the block: the jobs still queued are dropped, not run for nothing.
    const failed = new AbortController();
    const jobSignal = signal ? AbortSignal.any([signal, failed.signal]) : failed.signal;
    for (let i = 0; i < count; i++) {
      let pick = rng.uniform() * mixTotal;
      let n = 1;
      while (n < MAX_SLIDERS && pick >= s.sliderMix[n - 1]!) {
        pick -= s.sliderMix[n - 1]!;
        n++;
      }
      const start = sampleTransitionStart(rng, s.geometry, n, s.sampling);
      sliderCounts[String(n)]!++;
      if (isContactCase(start.x, start.ux, start.uy, s.dt, n, s.geometry)) contacts.push(i);
      const L = this.layouts[n - 1]!;
      const job = this.pool
        .run(
          {
            sceneKey: this.keys[n - 1]!,
            x: unpadState(start.x, L),
            controls: [[start.ux, start.uy]],
            dt: s.dt,
          },
          jobSignal,
          { retryTimeouts: true },
        )
        .then((r) => {
          const end = padState(r.states[0]!, L);
          const rec = records.subarray(i * RECORD_FLOATS, (i + 1) * RECORD_FLOATS);
          rec[0] = n;
          rec.set(start.x, 1);
          rec[1 + paddedLayout.size] = start.ux;
          rec[2 + paddedLayout.size] = start.uy;
          rec.set(end, 3 + paddedLayout.size);
        })
        .catch((e: unknown) => {
          failed.abort();
          throw e instanceof FineJobError
            ? new FineJobError(`block ${index}, transition ${i}: ${e.message}`, { cause: e })
            : e;
        });
      jobs.push(job);
    }
    await Promise.all(jobs);
    return { index, records, sliderCounts, contacts, seconds: monotonicSeconds() - t0 };
  }
}

/**
 * The first `count` transitions of a setting, made in memory (blocks 0, 1, ... concatenated), and
 * how many of them are contact cases.
 */
export async function generateTransitions(
  base: Scene,
  pool: FinePoolLike,
  settings: GenerationSettings,
  count: number,
): Promise<{ records: Float32Array; contacts: number }> {
  const generator = new BlockGenerator(base, pool, settings);
  const records = new Float32Array(count * RECORD_FLOATS);
  let contacts = 0;
  for (let b = 0; b * settings.blockSize < count; b++) {
    const block = await generator.make(b, Math.min(settings.blockSize, count - b * settings.blockSize));
    records.set(block.records, b * settings.blockSize * RECORD_FLOATS);
    contacts += block.contacts.length;
  }
  return { records, contacts };
}
