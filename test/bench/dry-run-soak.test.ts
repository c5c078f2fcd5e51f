/**
 * The dry-run soak, short: two console dry runs of a few actions each while two CPU-bound
 * processes run at normal priority (a real-time test: it runs in the realtime project, alone).
 * Neither stops (nor is refused at pre-flight) for stale motion capture, a missing robot state or
 * a stopped control program, and the bench reports each run's longest stream gaps from its log.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

describe('dry-run soak bench', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('has no run stop for the simulator under two CPU-bound processes', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await (
        await import('../../bench/dry-run-soak')
      ).run(['--runs', '2', '--hogs', '2', '--max-actions', '4']);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'dry-run-soak.json'), 'utf8'));
    expect(result.rows).toHaveLength(2);
    for (const r of result.rows) {
      expect(r.reason).not.toMatch(
        /Motion capture (stale|frozen)|No robot state|Control program not running/,
      );
      // Each run's longest gaps, read from its session log (reported, not judged: the stops are).
      expect(Number(r['longest frame gap ms'])).toBeGreaterThan(0);
      expect(Number(r['longest state gap ms'])).toBeGreaterThan(0);
    }
    expect(result.summary).toMatchObject({
      runs: '2 of 2',
      hogs: 2,
      'stops for stale motion capture, robot state or a stopped program': 0,
    });
    expect(result.verdict).toMatch(/^PASS/);
  }, 240_000);
});
