import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

interface TableRow {
  model: string;
  'trans mm': number;
  'rot deg': number;
}

describe('Parareal benchmark, Table I part alone', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const earlierMachine = { date: '2000-01-01T00:00:00.000Z' };
  beforeAll(() => {
    vi.stubEnv('PARAPUSH_BENCH_OUT', out);
    // An earlier full run: its speedup part must survive a run of Table I alone.
    writeFileSync(
      path.join(out, 'parareal.json'),
      JSON.stringify({ machine: earlierMachine, table1: { stale: true }, fig6: { runs: 20, rows: [] } }),
    );
  });
  afterAll(() => vi.unstubAllEnvs());

  // 6 pushes run to K = 4 (60 fine slices of 1.5 s): minutes when the two cores are busy.
  it('writes the box and cylinder tables, exact at K = 4, and keeps the earlier Fig. 6 result', async () => {
    const quiet = [
      vi.spyOn(process.stdout, 'write').mockImplementation(() => true),
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true),
    ];
    try {
      await (await import('../../../bench/parareal')).run(['table1', '--samples', '1']);
    } finally {
      for (const q of quiet) q.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'parareal.json'), 'utf8'));
    expect(result.fig6).toEqual({ machine: earlierMachine, runs: 20, rows: [] });
    expect(result.table1.stale).toBeUndefined();
    for (const slider of ['box', 'cylinder']) {
      const rows: TableRow[] = result.table1[slider].rows;
      expect(rows.map((r) => r.model)).toEqual([
        'coarse',
        'parareal:1',
        'parareal:2',
        'parareal:3',
        'parareal:4',
      ]);
      expect(rows[4]).toMatchObject({ 'trans mm': 0, 'rot deg': 0 });
      for (const r of rows) expect(r['trans mm']).toBeLessThan(300); // 150 mm pushes
    }
  }, 300_000);
});
