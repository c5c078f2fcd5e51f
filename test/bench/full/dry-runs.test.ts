/**
 * The dry-runs benchmark runs and reports sane numbers: one console dry run on the in-process
 * virtual lab with the console's default settings, how it ended, its planning and how soon it
 * pushed (a real-time test: it runs in the realtime project, alone).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

describe('dry-runs benchmark', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('runs a console dry run on the virtual lab and reports how it ended, its time and its planning', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await (await import('../../../bench/dry-runs')).run(['--runs', '1']);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'dry-runs.json'), 'utf8'));
    expect(result.summary).toMatchObject({
      runs: 1,
      settings: 'console default',
      scene: 'isrr-obstacle.json',
    });
    const [run] = result.runs;
    expect(['finished', 'failed', 'aborted']).toContain(run.outcome);
    expect(run.reason).toEqual(expect.any(String));
    expect(run.seconds).toBeGreaterThan(0);
    expect(run.seconds).toBeLessThan(120);
    expect(run.planning.length).toBe(run.actions);
    for (const s of run.planning) expect(s).toBeGreaterThan(0);
    // Each step's work beside its time: the sequences its plan predicted.
    expect(run.sequences.length).toBe(run.actions);
    for (const n of run.sequences) expect(n).toBeGreaterThan(0);
    // ...and the workers' CPU time and MuJoCo solver iterations for them (the work, counted).
    expect(run.workers).toBeGreaterThan(0);
    expect(run.workerCpu.length).toBe(run.actions);
    for (const s of run.workerCpu) expect(s).toBeGreaterThan(0);
    expect(run.solverIterations.length).toBe(run.actions);
    for (const n of run.solverIterations) expect(n).toBeGreaterThan(0);
    expect(run.replanned).toBeLessThanOrEqual(run.actions);
    expect(Object.values(result.outcomes).reduce((a: number, b) => a + (b as number), 0)).toBe(1);
    // How soon it pushed: from the start, and from arming, to the first motion command; a run that
    // pushed was armed first, and its first step is the one planned before that push: before
    // arming, unless the table moved meanwhile.
    expect(result.firstPush.map((r: { runs: string; n: number }) => [r.runs, r.n])).toEqual([
      ['run 1', 1],
      ['runs 2+', 0],
    ]);
    if (run.startToPush !== null) {
      expect(run.armToPush).toBeGreaterThan(0);
      expect(run.startToPush).toBeGreaterThan(run.armToPush);
      expect(run.planning.length).toBeGreaterThan(0);
      expect(typeof run.firstBeforeArming).toBe('boolean');
      if (run.firstBeforeArming)
        expect(run.startToPush - run.armToPush).toBeGreaterThanOrEqual(run.planning[0]);
    }
    expect(Object.keys(result.firstPush[0])).toEqual(
      expect.arrayContaining([
        'first step sequences',
        'first step ms/sequence',
        'later steps ms/sequence',
        'first step worker CPU ms/sequence',
        'later steps worker CPU ms/sequence',
        'first step solver iterations/sequence',
        'later steps solver iterations/sequence',
        'first step workers busy',
        'later steps workers busy',
      ]),
    );
  }, 180_000);
});
