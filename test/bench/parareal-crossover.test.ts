import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCrossoverArgs } from '../../bench/parareal-crossover';
import { fineJobs } from '../../src-main/parareal/cost-model';
import { readCrossoverResult } from '../../src-main/parareal/crossover-result';
import { chooseAuto } from '../../src-main/parareal/model-choice';

describe('parareal-crossover bench', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('reads its options and refuses a run without one worker', () => {
    expect(parseCrossoverArgs(['--states', '2', '--workers', '1,4'])).toMatchObject({
      states: 2,
      reps: 4,
      workers: [1, 4],
      maxWorkers: 128,
    });
    expect(() => parseCrossoverArgs(['--workers', '2'])).toThrow(/include 1/);
    expect(() => parseCrossoverArgs(['--states', '0'])).toThrow(/whole numbers/);
    expect(() => parseCrossoverArgs(['--bogus', '1'])).toThrow(/cannot read/);
  });

  it('measures, fits the cost model and writes a result auto can read, at a tiny size', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await (
        await import('../../bench/parareal-crossover')
      ).run(['--states', '1', '--reps', '1', '--workers', '1', '--max-workers', '8']);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const r = readCrossoverResult(path.join(out, 'parareal-crossover.json'));
    expect(r.machine.loadAtStart).toBeGreaterThanOrEqual(0);
    const models = ['fine', 'parareal:1', 'parareal:1/2-control-slices', 'parareal:2', 'parareal:3'];
    expect(r.measured.map((m) => `${m.kind} ${m.model}`).sort()).toEqual(
      ['prediction', 'step'].flatMap((k) => models.map((m) => `${k} ${m}`)),
    );
    // A prediction runs the jobs the model counts: one for the fine model, sum (N - k + 1) over N
    // slices for Parareal; the fine model's own is exact.
    const jobs: Record<string, number> = {
      fine: 1,
      'parareal:1': fineJobs(1, r.horizon),
      'parareal:1/2-control-slices': fineJobs(1, r.horizon / 2),
      'parareal:2': fineJobs(2, r.horizon),
      'parareal:3': fineJobs(3, r.horizon),
    };
    for (const m of r.measured.filter((x) => x.kind === 'prediction')) {
      expect([m.model, m.fineJobs]).toEqual([m.model, jobs[m.model]]);
      expect(m.q1).toBeLessThanOrEqual(m.measured);
      expect(Number.isFinite(m.error)).toBe(true);
      if (m.model === 'fine') expect(m.vsFineMm).toBe(0);
    }
    // A control of the fine model (Euler at 2 ms, 1 s) is milliseconds of work, far more than a coarse one.
    expect(r.constants.fineControl).toBeGreaterThan(1e-4);
    expect(r.constants.fineControl).toBeLessThan(1);
    expect(r.constants.coarseControl).toBeLessThan(r.constants.fineControl);
    expect(r.stepSequences).toBeGreaterThanOrEqual(20); // the task's 20 rollouts and its warm start at least
    expect(r.model.filter((m) => m.kind === 'step').map((m) => m.workers)).toContain(8);
    // The recorded switch is auto's own, worker count by worker count.
    const from = r.crossover.step.auto;
    for (let workers = 1; workers <= r.maxWorkers; workers++)
      expect(
        chooseAuto({ workers, sequences: r.stepSequences, horizon: r.horizon }, r.constants).model.kind,
      ).toBe(from !== null && workers >= from ? 'parareal' : 'fine');
  }, 300_000);
});
