import { describe, expect, it } from 'vitest';
import {
  fig5Table,
  fig6Table,
  PUSHER_FRICTION_CHANGE,
} from '../../src-main/experiments/parareal-bench-tables';
import { benchRoot, MACHINE } from '../helpers/bench-root';

const poseRow = {
  push: 'box side',
  ...Object.fromEntries(
    [0, 1, 2, 3, 4].flatMap((K) => [
      [`k=${K} mm`, 10 / (K + 1)],
      [`k=${K} deg`, 1 / (K + 1)],
    ]),
  ),
  'floor mm': 0.519,
  'floor deg': 0.105,
};
const fig6 = (date: string) => ({
  machine: { ...MACHINE, date },
  runs: 20,
  cores: 2,
  rows: [
    { W: 2, model: 'fine (serial)', 'wall ms': 186.53, '+-95%': 0.558, speedup: 1, theory: 1, efficiency: 1 },
    {
      W: 2,
      model: 'parareal:1',
      'wall ms': 99.35,
      '+-95%': 2.23,
      speedup: 1.8775,
      theory: 1.9964,
      efficiency: 0.94,
    },
  ],
});

describe('ISRR Fig. 5 and Fig. 6 bench blocks', () => {
  it("Fig. 5: each iterate against the fine floor, dated by the part's own stamp where it has one", () => {
    const root = benchRoot({
      parareal: {
        machine: MACHINE,
        fig5: {
          machine: { ...MACHINE, date: '2026-05-06T00:00:00Z' },
          poseRows: [poseRow],
          floorShift: 1e-4,
        },
      },
    });
    const text = fig5Table(root);
    expect(text).toContain('pusher 0.1 mm to the side');
    expect(text).toContain('recorded 2026-05-06');
    expect(text).toContain(
      '| box side | 10.00 / 1.00 | 5.00 / 0.50 | 3.33 / 0.33 | 2.50 / 0.25 | 2.00 / 0.20 | 0.52 / 0.10 |',
    );
  });

  it('Fig. 6: wall times and speedups, and timings older than the pusher-friction change say so', () => {
    const old = fig6Table(benchRoot({ parareal: { machine: MACHINE, fig6: fig6('2026-11-21T09:08:29Z') } }));
    expect(old).toContain('| 2 | parareal:1 | 99.3 ± 2.2 | 1.88 | 2.00 |');
    expect(old).toContain(`predate the pusher-friction change (commit ${PUSHER_FRICTION_CHANGE.commit})`);
    expect(old).toContain('recorded 2026-11-21');
    // The paper's absolute times are other hardware's: the block quotes none.
    expect(old).not.toMatch(/paper: |1\.22 s|0\.31 s/);
    const fresh = fig6Table(
      benchRoot({ parareal: { machine: MACHINE, fig6: fig6('2026-11-24T00:00:00Z') } }),
    );
    expect(fresh).not.toContain('predate');
    // Measured in the file's latest run, the part has no stamp of its own: the file's dates it.
    const { machine: _own, ...latest } = fig6('2026-11-24T00:00:00Z');
    const unstamped = fig6Table(
      benchRoot({ parareal: { machine: { ...MACHINE, date: '2026-11-29T13:19:00Z' }, fig6: latest } }),
    );
    expect(unstamped).toContain('recorded 2026-11-29');
    expect(unstamped).not.toContain('predate');
  });

  it('says which part is missing', () => {
    const root = benchRoot({ parareal: { machine: MACHINE } });
    expect(fig5Table(root)).toContain('`npm run bench -- parareal fig5` writes it');
    expect(fig6Table(root)).toContain('`npm run bench -- parareal fig6` writes it');
  });
});
