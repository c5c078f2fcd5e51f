import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { spawnWithSendHook } from '../helpers/hooked-worker';
import { createPredictor, type PredictionModel } from '../../src-main/parareal/predictor';
import { parseModelSpec } from '../../src-main/parareal/model-choice';
import { initialState, type State, type Control } from '#contract/state';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');
const dt = 0.5;
const x0 = initialState(scene);
// A push into the slider with a sideways component: contact, rotation and sliding in every slice.
const controls: Control[] = [
  [0.06, 0],
  [0.06, 0.015],
  [0.05, -0.02],
  [0.06, 0.01],
];
const parareal = (iterations: number, controlsPerSlice = 1): PredictionModel => ({
  kind: 'parareal',
  iterations,
  tolerance: null,
  controlsPerSlice,
});

const bits = (s: State): number[] => Array.from(s);

describe('Parareal on the worker pool', () => {
  let pool: FinePool;
  let serialFine: State[];
  beforeAll(async () => {
    pool = new FinePool({ workers: 2 });
    const fine = await createPredictor(scene, pool, { kind: 'fine' }, { dt }).predict({
      x0,
      controls: [controls],
    });
    serialFine = fine.sequences[0]!.iterates[0]!;
  });
  afterAll(() => pool.close());

  it('iteration k is bit-identical to the serial fine states at the first k slice boundaries', async () => {
    for (let k = 0; k <= controls.length; k++) {
      const r = await createPredictor(scene, pool, parareal(k), { dt }).predict({ x0, controls: [controls] });
      const seq = r.sequences[0]!;
      expect(seq.iterates).toHaveLength(k + 1);
      for (let j = 0; j <= k; j++) {
        for (let n = 0; n <= j; n++)
          expect(bits(seq.iterates[j]![n]!), `k=${j} n=${n}`).toEqual(bits(serialFine[n]!));
      }
      // And the coarse start (k = 0) is not already exact past x0, so the test has teeth.
      if (k === 0) expect(bits(seq.iterates[0]![2]!)).not.toEqual(bits(serialFine[2]!));
    }
  });

  it('K = number of slices reproduces the whole serial fine trajectory, also with several controls per slice', async () => {
    const whole = await createPredictor(scene, pool, parareal(4), { dt }).predict({
      x0,
      controls: [controls],
    });
    const seq = whole.sequences[0]!;
    expect(seq.stoppedBy).toBe('exact');
    expect(seq.iterates.at(-1)!.map(bits)).toEqual(serialFine.map(bits));
    const twoPerSlice = await createPredictor(scene, pool, parareal(2, 2), { dt }).predict({
      x0,
      controls: [controls],
    });
    expect(twoPerSlice.sequences[0]!.iterates.at(-1)!.map(bits)).toEqual(serialFine.map(bits));
  });

  it('recomputes no exact slice: iteration k runs fine jobs only from slice k-1 on', async () => {
    const r = await createPredictor(scene, pool, parareal(3), { dt }).predict({ x0, controls: [controls] });
    // Iteration 1: 4 slices, iteration 2: slices 1..3, iteration 3: slices 2..3.
    expect(r.timing.fineJobs).toBe(4 + 3 + 2);
  });

  it('batched and one-by-one predictions agree bit for bit', async () => {
    const other: Control[] = controls.map((u) => [u[0]! * 0.8, -u[1]!]);
    const predictor = createPredictor(scene, pool, parareal(2), { dt });
    const batch = await predictor.predict({ x0, controls: [controls, other] });
    const a = await predictor.predict({ x0, controls: [controls] });
    const b = await predictor.predict({ x0, controls: [other] });
    expect(batch.sequences[0]!.iterates.map((it) => it.map(bits))).toEqual(
      a.sequences[0]!.iterates.map((it) => it.map(bits)),
    );
    expect(batch.sequences[1]!.iterates.map((it) => it.map(bits))).toEqual(
      b.sequences[0]!.iterates.map((it) => it.map(bits)),
    );
  });

  it('stops adaptively once no slider pose changes more than the tolerance', async () => {
    const model: PredictionModel = {
      kind: 'parareal',
      iterations: 4,
      tolerance: { translation: 0.5, rotation: 10 },
      controlsPerSlice: 1,
    };
    const r = await createPredictor(scene, pool, model, { dt }).predict({ x0, controls: [controls] });
    expect(r.sequences[0]!.stoppedBy).toBe('tolerance');
    expect(r.sequences[0]!.iterates).toHaveLength(2);
  });

  it.each([
    ['fine', { kind: 'fine' } as PredictionModel],
    ['Parareal K = 2', parareal(2)],
  ])('%s: an aborted prediction rejects and drops its queued fine jobs', async (_, model) => {
    const jobs: Promise<unknown>[] = [];
    const run = pool.run.bind(pool);
    const spy = vi.spyOn(pool, 'run').mockImplementation((job, signal) => {
      const p = run(job, signal);
      jobs.push(p);
      return p;
    });
    try {
      const abort = new AbortController();
      const prediction = createPredictor(scene, pool, model, { dt }).predict({
        x0,
        controls: Array.from({ length: 24 }, () => controls),
        signal: abort.signal,
      });
      abort.abort();
      await expect(prediction).rejects.toThrow(/cancelled/);
      const settled = await Promise.allSettled(jobs);
      const dropped = settled.filter((s) => s.status === 'rejected' && /cancelled/.test(String(s.reason)));
      // Jobs already sent to a worker finish; the rest never run.
      expect(dropped.length).toBeGreaterThan(jobs.length / 4);
    } finally {
      spy.mockRestore();
    }
    // The pool goes on answering, and exactly.
    const again = await createPredictor(scene, pool, { kind: 'fine' }, { dt }).predict({
      x0,
      controls: [controls],
    });
    expect(again.sequences[0]!.iterates[0]!.map(bits)).toEqual(serialFine.map(bits));
  });
});

describe('results do not depend on the workers', () => {
  it('gives the same bits with 1 or 2 workers and when a worker is killed mid-prediction', async () => {
    const one = new FinePool({ workers: 1 });
    const two = new FinePool({ workers: 2 });
    try {
      const ref = await createPredictor(scene, one, parareal(2), { dt }).predict({
        x0,
        controls: [controls],
      });
      const par = await createPredictor(scene, two, parareal(2), { dt }).predict({
        x0,
        controls: [controls],
      });
      expect(par.sequences[0]!.iterates.map((i) => i.map(bits))).toEqual(
        ref.sequences[0]!.iterates.map((i) => i.map(bits)),
      );

      // A pool whose worker receiving the third batch of jobs (counted across workers, so the
      // kill happens whichever worker the scheduler picks) is killed right after the send.
      let batches = 0;
      const killing = new FinePool({
        workers: 2,
        spawn: () =>
          spawnWithSendHook((m, forward, worker) => {
            forward(m);
            if (m.type === 'jobs' && ++batches === 3) worker.kill();
          }),
      });
      let killed;
      try {
        killed = await createPredictor(scene, killing, parareal(2), { dt }).predict({
          x0,
          controls: [controls, controls],
        });
        expect(batches).toBeGreaterThan(3);
        expect(killing.replacements).toBe(1);
      } finally {
        await killing.close();
      }
      for (const seq of killed.sequences) {
        expect(seq.iterates.map((i) => i.map(bits))).toEqual(
          ref.sequences[0]!.iterates.map((i) => i.map(bits)),
        );
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('model specs', () => {
  it('name the coarse model after @, analytical by default', () => {
    expect(parseModelSpec('parareal:3@learned')).toEqual({ model: parareal(3), coarse: 'learned' });
    expect(parseModelSpec('coarse')).toEqual({ model: { kind: 'coarse' }, coarse: 'analytical' });
    expect(parseModelSpec('fine@analytical').model).toEqual({ kind: 'fine' });
    expect(() => parseModelSpec('fine@learned')).toThrow(/no coarse model/);
    expect(() => parseModelSpec('coarse@mlp')).toThrow(/analytical or learned/);
    expect(() => parseModelSpec('parareal:x')).toThrow(/whole number/);
  });
});
