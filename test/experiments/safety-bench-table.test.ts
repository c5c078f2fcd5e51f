import { describe, expect, it } from 'vitest';
import { safetyBenchTable } from '../../src-main/experiments/safety-bench-table';
import { benchRoot, MACHINE } from '../helpers/bench-root';

function result(raised: boolean): object {
  return {
    machine: MACHINE,
    tick: 0.005,
    seconds: 60,
    hogs: 2,
    scene: 'isrr-obstacle.json',
    threadPriority: raised ? { raised, nice: -14 } : { raised },
    frameGaps: { ticks: 7343, p50: 8.26, p99: 12.36, max: 20.74 },
    runs: [{ outcome: 'aborted', reason: 'Aborted by operator' }, { outcome: 'succeeded' }],
    rows: [
      { where: 'safety thread', ticks: 11619, p50: 0.14, p99: 3.48, max: 11.66, 'staleness stops': 0 },
      { where: 'main thread (probe)', ticks: 11072, p50: 0.17, p99: 5.84, max: 128.45 },
    ],
  };
}

describe('safety thread bench block', () => {
  it('has both clocks, the priority the thread got, the frame gaps and how the runs ended', () => {
    const text = safetyBenchTable(benchRoot({ safety: result(true) }));
    expect(text).toContain('60 s of console dry runs on `isrr-obstacle.json`, 2 CPU-bound processes');
    expect(text).toContain('safety thread at nice -14');
    expect(text).toContain('| safety thread | 11619 | 0.14 ms | 3.48 ms | 11.7 ms | 0 |');
    expect(text).toContain('| main thread (probe) | 11072 | 0.17 ms | 5.84 ms | 128.4 ms | – |');
    expect(text).toContain('p50 8.3 ms, p99 12.4 ms, max 20.7 ms apart');
    expect(text).toContain('Dry runs in the window: 2 (Aborted by operator; succeeded).');
  });

  it('says when the thread ran at normal priority', () => {
    expect(safetyBenchTable(benchRoot({ safety: result(false) }))).toContain(
      'safety thread at normal priority (raising it was refused)',
    );
  });
});
