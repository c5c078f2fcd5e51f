import { describe, expect, it } from 'vitest';
import { mocapBenchTable } from '../../src-main/experiments/mocap-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

describe('mocap bench block', () => {
  it('has the decode rates in thousands and a latency row per mode and version', () => {
    const root = benchRoot({
      mocap: {
        machine: MACHINE,
        seconds: 3,
        decode: [{ frame: 'captured', natnet: '3.0', bytes: 336, 'frames/s': 573838.3, '±95%': 58528 }],
        latency: [
          {
            mode: 'multicast',
            natnet: '3.1',
            frames: 360,
            'frame rate Hz': 119.855,
            'median ms': 0.2487,
            'p95 ms': 0.32,
            'p99 ms': 0.8039,
            'max ms': 12.0096,
            dropped: 0,
          },
        ],
      },
    });
    const lines = mocapBenchTable(root).split('\n');
    expect(lines[0]).toBe(
      '`bench/results/mocap.json`, recorded 2026-01-02 on 4 cores (Test CPU, Node v20.0.0); the file records no commit.',
    );
    expect(lines).toContain('| captured | 3.0 | 336 | 574k ± 59k |');
    expect(lines).toContain('| multicast | 3.1 | 360 | 119.9 Hz | 0.25 ms | 0.80 ms | 12.0 ms | 0 |');
  });
});
