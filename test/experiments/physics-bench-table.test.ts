import { describe, expect, it } from 'vitest';
import { physicsBenchTable } from '../../src-main/experiments/physics-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

const cost = {
  machine: MACHINE,
  repeats: 7,
  rows: [
    {
      integrator: 'Euler',
      sliders: 2,
      'fine us/step': 11.51,
      'fine ms/control': 11.51,
      'coarse us/control': 1.317,
      'fine/coarse': 8737.4,
    },
  ],
};
const spread = {
  prediction: 'real-world spread (ISRR 2019)',
  'cost vs reference': '',
  'mean diff mm': 8.1,
  'mean diff deg': 4.2,
};

describe('physics bench block', () => {
  it("has the cost table, the random pushes where committed, and each task's own accuracy table", () => {
    const root = benchRoot({
      physics: {
        ...cost,
        accuracy: {
          pushes: 100,
          rows: [
            {
              prediction: 'Euler 2 ms',
              'cost vs reference': 0.1062,
              'mean diff mm': 1.456,
              'mean diff deg': 0.871,
            },
            spread,
          ],
        },
      },
      'physics-wafr-clutter': {
        machine: MACHINE,
        task: 'wafr-clutter',
        situations: 24,
        runs: ['a', 'b'],
        horizon: 4,
        rows: [
          {
            prediction: 'Euler 5 ms',
            'cost vs reference': 0.0412,
            'mean diff mm': 2.5,
            'mean diff deg': 2.09,
            'max diff mm': 13.11,
          },
          { ...spread, 'max diff mm': '' },
        ],
      },
      // Another bench's results: not a task's accuracy.
      'physics-lab': { anything: true },
    });
    const text = physicsBenchTable(root);
    expect(text).toContain('| Euler | 2 | 11.5 | 1.32 | 8737 |');
    expect(text).toContain('after 100 random off-centre 4 s pushes');
    expect(text).toContain('| Euler 2 ms | 0.106 | 1.46 / 0.87 |');
    expect(text).toContain('| real-world spread (ISRR 2019) |  | 8.10 / 4.20 |');
    expect(text).toContain(
      '**wafr-clutter**: 24 situations of 2 recorded fine-model runs, up to 4 executed controls',
    );
    expect(text).toContain('| Euler 5 ms | 0.041 | 2.50 / 2.09 | 13.1 |');
    expect(text).toContain('| real-world spread (ISRR 2019) |  | 8.10 / 4.20 |  |');
    expect(text).not.toContain('physics-lab');
  });

  it('says when the committed cost run holds no accuracy part, and when there is no run', () => {
    expect(physicsBenchTable(benchRoot({ physics: cost }))).toContain('holds no accuracy part');
    expect(physicsBenchTable(benchRoot({}))).toMatch(/^Not measured: no `bench\/results\/physics.json`/);
  });
});
