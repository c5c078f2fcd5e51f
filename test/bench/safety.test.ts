/**
 * The safety benchmark runs and reports sane numbers: a few seconds of console dry run, whose
 * supervisors tick in the virtual lab link's safety thread, no extra load (a real-time test: it
 * runs in the realtime project, alone). No timing threshold: the figures are the benchmark's to
 * report.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

describe('safety benchmark', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('reports tick lateness on the main thread and in the safety thread, and the stops', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await (await import('../../bench/safety')).run(['--seconds', '5', '--hogs', '0']);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'safety.json'), 'utf8'));
    expect(result).toMatchObject({ tick: 0.005, seconds: 5, hogs: 0, scene: 'isrr-obstacle.json' });
    for (const where of ['main', 'thread', 'frames'] as const) {
      const s = where === 'frames' ? result.frameGaps : result.lateness[where];
      expect(s.ticks, where).toBeGreaterThan(0);
      expect(s.p50, where).toBeGreaterThanOrEqual(0);
      expect(s.p50, where).toBeLessThanOrEqual(s.p99);
      expect(s.p99, where).toBeLessThanOrEqual(s.max);
      expect(Number.isFinite(s.max), where).toBe(true);
    }
    // At least 5 s of 5 ms ticks (measuring lasts until the last run has ended): hundreds at the least.
    expect(result.lateness.thread.ticks).toBeGreaterThanOrEqual(100);
    expect(result.runs.length).toBeGreaterThanOrEqual(1);
    for (const r of result.runs) expect(['finished', 'failed', 'aborted']).toContain(r.outcome);
    const rows = result.rows as { where: string; 'staleness stops'?: number }[];
    expect(rows.map((r) => r.where)).toEqual(['safety thread', 'main thread (probe)']);
    // The thread's row counts the dry runs' staleness stops: one per run at most.
    expect(rows[0]!['staleness stops']).toBeGreaterThanOrEqual(0);
    expect(rows[0]!['staleness stops']).toBeLessThanOrEqual(result.runs.length);
  }, 180_000);
});
