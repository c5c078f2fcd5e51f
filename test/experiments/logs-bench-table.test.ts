import { describe, expect, it } from 'vitest';
import { logsBenchTable } from '../../src-main/experiments/logs-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

describe('session log bench block', () => {
  it('has both cases and the recorder overhead against its goal', () => {
    const root = benchRoot({
      logs: {
        machine: MACHINE,
        seconds: 10,
        rates: { robotHz: 500, mocapHz: 120, plannerHz: 1 },
        rows: [
          {
            case: 'baseline (no recorder)',
            'wall s': 10,
            'cpu s': 0.320956,
            '% of a core': 3.2095,
            messages: 0,
          },
          { case: 'recording', 'wall s': 10, 'cpu s': 0.359155, '% of a core': 3.5914, messages: 8607 },
        ],
        result: {
          'recorder overhead, % of a core (goal <= 2)': 0.3819,
          'record() call, us': 10.386,
          'log size, MB per minute': 29.96,
          'finalize (index) time, s': 0.1055,
          'messages per second': 860.5,
        },
      },
    });
    const lines = logsBenchTable(root).split('\n');
    expect(lines[0]).toMatch(/^10 s of 500 Hz robot state, 120 Hz motion capture and 1 Hz planner steps/);
    expect(lines).toContain('| recording | 0.359 s | 3.59 % | 8607 |');
    expect(lines.at(-1)).toBe(
      'Recorder overhead 0.38 % of a core (goal: at most 2 %), 10.4 us per `record()` call, 30 MB of log per minute, finalize (index) 0.11 s.',
    );
  });
});
