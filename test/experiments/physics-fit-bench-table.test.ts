import { describe, expect, it } from 'vitest';
import { physicsFitBenchTable } from '../../src-main/experiments/physics-fit-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

describe('physics fit bench block', () => {
  it('shows the fit time on its runs and workers with what it fitted', () => {
    const fit = {
      runs: 10,
      workers: 2,
      evaluations: 30,
      'fit s': 29.7,
      's / evaluation': 0.99,
      'friction x': 1.756,
      'table x': 0.901,
      'held-out p50 before mm': 1.82,
      'held-out p50 after mm': 0.82,
      warnings: [],
    };
    const text = physicsFitBenchTable(benchRoot({ 'physics-fit': { machine: MACHINE, fit } }));
    expect(text).toContain('10 simulated lab logs');
    expect(text).toContain('| 10 | 2 | 30 | 29.7 s | 0.99 s | x1.756 | x0.901 | 1.82 mm / 0.82 mm |');
  });
});
