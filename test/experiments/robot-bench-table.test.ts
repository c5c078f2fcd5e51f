import { describe, expect, it } from 'vitest';
import { robotBenchTable } from '../../src-main/experiments/robot-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

const loop = (name: string, rate: number, ackP50: number) => ({
  loop: name,
  commands: 10,
  'rate Hz': rate,
  'jitter p50 ms': 0.123,
  'jitter p99 ms': 1.456,
  'jitter max ms': 7.89,
  'ack p50 ms': ackP50,
  'ack p99 ms': 9.99,
});

describe('robot bench block', () => {
  it('has a row per loop and the abort latency, with where the figures come from', () => {
    const root = benchRoot({
      robot: {
        machine: MACHINE,
        seconds: 5,
        loops: [loop('125 Hz', 124.96, 8.04), loop('500 Hz', 499.8, 2.26)],
        abort: { aborts: 200, 'p50 ms': 0.0566, 'p99 ms': 0.219, 'max ms': 2.94 },
      },
    });
    const text = robotBenchTable(root);
    expect(text).toContain(
      '`bench/results/robot.json`, recorded 2026-01-02 on 4 cores (Test CPU, Node v20.0.0)',
    );
    expect(text).toContain('the file records no commit');
    expect(text).toContain('| 125 Hz | 10 | 125.0 Hz | 0.12 / 1.46 / 7.9 ms | p50 8.0 ms, p99 10.0 ms |');
    expect(text).toContain('| 500 Hz | 10 | 499.8 Hz | 0.12 / 1.46 / 7.9 ms | p50 2.3 ms, p99 10.0 ms |');
    expect(text).toContain('200 aborts while moving): p50 0.057 ms, p99 0.22 ms, max 2.9 ms.');
  });
});
