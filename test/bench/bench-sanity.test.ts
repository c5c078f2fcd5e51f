import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { theoreticalSpeedup } from '../../bench/parareal';
import { fineJobs } from '../../src-main/parareal/cost-model';

describe('Parareal speedup bound (ISRR Eq. 5 generalised)', () => {
  it('counts the fine jobs with exact slices skipped', () => {
    expect([1, 2, 3, 4].map((K) => fineJobs(K, 4))).toEqual([4, 7, 9, 10]);
  });
  it('equals Eq. 5 (N / K for a free coarse model) with one worker per slice', () => {
    for (let K = 1; K <= 4; K++) expect(theoreticalSpeedup(K, 4, 4, 0)).toBeCloseTo(4 / K, 12);
  });
  it('is never above 1 with a single worker, and the coarse model costs time', () => {
    expect(theoreticalSpeedup(1, 4, 1, 0)).toBe(1);
    expect(theoreticalSpeedup(2, 4, 1, 0)).toBeCloseTo(4 / 7, 12);
    expect(theoreticalSpeedup(1, 4, 4, 0.01)).toBeLessThan(4);
  });
});

describe('physics benchmark', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('runs and reports plausible costs for every integrator and slider count, coarse far cheaper', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await (await import('../../bench/physics')).run(['1', '4']);
    } finally {
      log.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'physics.json'), 'utf8'));
    const rk4 = result.rows.filter((r: { integrator: string }) => r.integrator === 'RK4');
    expect(rk4.map((r: { sliders: number }) => r.sliders)).toEqual([1, 2, 3, 4]);
    expect(result.rows).toHaveLength(8);
    for (const r of result.rows) {
      expect(r['fine us/step']).toBeGreaterThan(0.5);
      expect(r['fine us/step']).toBeLessThan(10_000);
      expect(r['fine/coarse']).toBeGreaterThan(50);
    }
    // How cost grows with sliders is a timing claim, left to the bench itself (one repeat here).
    // The accuracy table: the reference against itself is exact, every setting differs a little
    // (a finite, non-negative number of mm), and the real-world spread closes the table.
    const acc = result.accuracy.rows as { prediction: string; 'mean diff mm': number }[];
    expect(result.accuracy.pushes).toBe(4);
    expect(acc[0]!['mean diff mm']).toBe(0);
    for (const r of acc.slice(1, -1)) {
      expect(r['mean diff mm']).toBeGreaterThanOrEqual(0);
      expect(r['mean diff mm']).toBeLessThan(100);
    }
    expect(acc[acc.length - 1]!.prediction).toMatch(/real-world spread/);
  });
});
