import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { soakTable } from '../../src-main/experiments/soak-table';

function record(stops: number, loads: number[], frameGap: string): object {
  return {
    command: 'npm run bench -- dry-run-soak --max-actions 12',
    verdict: stops === 0 ? 'PASS' : 'FAIL',
    summary: {
      runs: `${loads.length} of ${loads.length}`,
      hogs: 2,
      'stops for stale motion capture, robot state or a stopped program': stops,
      'longest frame gap ms': frameGap,
      'longest state gap ms': '12.0',
    },
    rows: loads.map((load) => ({ load })),
  };
}

describe('dry-run soak table', () => {
  it('has a row per committed record, the passing one first, with its load range and verdict', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'parapush-soak-table-'));
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(
      path.join(root, 'bench/results/dry-run-soak-a.json'),
      JSON.stringify(record(1, [20, 25], '150.0')),
    );
    writeFileSync(
      path.join(root, 'bench/results/dry-run-soak.json'),
      JSON.stringify(record(0, [2, 3.5, 4], '30.1')),
    );
    const lines = soakTable(root).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain('`bench/results/dry-run-soak.json` | 2 | 2 to 4 | 0 of 3: **PASS** | 30.1 ms');
    expect(lines[3]).toContain(
      '`bench/results/dry-run-soak-a.json` | 2 | 20 to 25 | 1 of 2: FAIL | 150.0 ms',
    );
  });

  it('names a record whose fields are wrong', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'parapush-soak-table-'));
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, 'bench/results/dry-run-soak.json'), JSON.stringify({ command: 'x' }));
    expect(() => soakTable(root)).toThrow(/dry-run soak record.*(verdict|summary|rows)/s);
  });
});
