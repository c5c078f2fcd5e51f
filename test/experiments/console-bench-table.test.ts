import { describe, expect, it } from 'vitest';
import { consoleBenchTable } from '../../src-main/experiments/console-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

const row = (stage: string, p50: number, within: string) => ({
  stage,
  aborts: 20,
  'p50 ms': p50,
  'p90 ms': 1.251,
  'max ms': 12.5,
  'within 10 ms': within,
});

describe('console abort bench block', () => {
  it('has a row per stage against the bench target, with the load it ran at', () => {
    const root = benchRoot({
      console: {
        machine: { ...MACHINE, loadAtStart: 1.5 },
        target: 0.01,
        rows: [row('stop written by the client', 0.1187, '20/20'), row('stop decoded', 0.4292, '19/20')],
      },
    });
    const lines = consoleBenchTable(root).split('\n');
    expect(lines[0]).toContain('load average 1.5 at the start');
    expect(lines).toContain('| stage | aborts | p50 | p90 | max | within 10 ms |');
    expect(lines).toContain('| stop written by the client | 20 | 0.12 ms | 1.25 ms | 12.50 ms | 20/20 |');
    expect(lines).toContain('| stop decoded | 20 | 0.43 ms | 1.25 ms | 12.50 ms | 19/20 |');
  });

  it('refuses a row without the count within its target', () => {
    const root = benchRoot({
      console: { machine: MACHINE, target: 0.005, rows: [row('stop written by the client', 0.1, '20/20')] },
    });
    expect(() => consoleBenchTable(root)).toThrow(/within 5 ms/);
  });
});
