/**
 * The learned-model and planner benchmarks run and report sane numbers (minutes on two cores: run
 * with `npm run test:bench`, not in `npm test`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

describe('learned-model benchmark, task section', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('runs the cvs-multi-object experiment with both coarse models on paired scenes', async () => {
    const quiet = [
      vi.spyOn(process.stdout, 'write').mockImplementation(() => true),
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true),
    ];
    try {
      await (await import('../../../bench/learned')).run(['task', '--task-scenes', '1']);
    } finally {
      for (const q of quiet) q.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'learned.json'), 'utf8'));
    expect(result.task.rows.map((r: { model: string }) => r.model)).toEqual(['coarse', 'coarse@learned']);
    for (const r of result.task.rows) {
      expect(r.scenes).toBe(1);
      expect([0, 100]).toContain(r['success %']);
      expect(r['mean actions']).toBeGreaterThanOrEqual(1);
      expect(r['mean actions']).toBeLessThanOrEqual(20);
    }
  });
});

describe('planner benchmark', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('plans steps along a recorded run, says what auto picked and how far each model is from fine', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await (await import('../../../bench/planner')).run(['1', '1', 'coarse,fine,auto']);
    } finally {
      log.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'planner.json'), 'utf8'));
    expect(result.rows.map((r: { model: string }) => r.model)).toEqual(['coarse', 'fine', 'auto (fine)']);
    for (const r of result.rows) {
      expect(r['plan s/step']).toBeGreaterThan(0);
      expect(r['plan s/step']).toBeLessThan(120);
    }
    // The fine model is the yardstick of accuracy: it matches itself; the coarse model does not.
    expect(result.rows[1]['vs fine mm']).toBe(0);
    expect(result.rows[0]['vs fine mm']).toBeGreaterThan(0);
    expect(result.rk4OneSliderStepUs).toBeGreaterThan(0.5);
    expect(readFileSync(path.join(out, 'planner-crossover.svg'), 'utf8')).toMatch(
      /<svg[\s\S]*fine[\s\S]*<\/svg>/,
    );
  }, 900_000);
});

describe('planner benchmark of a task', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('plans with the task’s own planner from its recorded run and counts the work per step', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await (
        await import('../../../bench/planner')
      ).run(['--task', 'wafr-l-shape', '--steps', '1', '--workers', '1', '--models', 'fine,fine/mpc']);
    } finally {
      log.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'planner-wafr-l-shape.json'), 'utf8'));
    expect(result.planner).toBe('tampc');
    expect(result.states).toMatch(/^docs\/experiments\/wafr-l-shape-fine fine\/tampc scene 0$/);
    expect(result.rows.map((r: { model: string }) => r.model)).toEqual(['fine', 'fine/mpc']);
    for (const r of result.rows) {
      expect(r['vs fine mm']).toBe(0);
      expect(r['control s']).toBe(1);
    }
    const [tampc, mpc] = result.profile;
    expect([tampc.planner, mpc.planner]).toEqual(['tampc', 'mpc']);
    // MPC: 20 rollouts per iteration, 2 iterations, the start and 2 fresh candidates, 4 controls
    // of 500 Euler 2 ms steps each.
    expect(mpc['fine jobs/step']).toBe(43);
    expect(mpc['MuJoCo steps/step']).toBe(43 * 4 * 500);
    // TAMPC: 3 candidates of 21 sequences and 5 samples each; longer sequences, so more steps.
    expect(tampc['fine jobs/step']).toBe(3 * 21 + 3 * 5);
    expect(tampc['MuJoCo steps/step']).toBeGreaterThan(mpc['MuJoCo steps/step']);
  }, 900_000);
});
