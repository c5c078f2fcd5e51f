import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayAccuracyRows } from '../../bench/physics-accuracy';
import { fineRuns } from '../../bench/recorded-runs';
import { loadTaskFile } from '../../src-main/planning/task-file';

describe('prediction accuracy on a task’s recorded situations', () => {
  it('measures each setting against RK4 1 ms on the run’s own drawn scene', async () => {
    const { task, scene } = loadTaskFile(path.resolve('resources/tasks/wafr-l-shape.json'));
    const [first] = fineRuns('wafr-l-shape', task, scene);
    const { states, controls } = first!.record.summary;
    const rows = await replayAccuracyRows(
      [
        {
          scene: first!.scene,
          replays: [{ x0: Float64Array.from(states[0]!), controls: controls.slice(0, 2) }],
        },
      ],
      task.planner.controlDuration,
      [
        { integrator: 'RK4', timestep: 0.001 },
        { integrator: 'Euler', timestep: 0.005 },
      ],
    );
    expect(rows.map((r) => r.prediction)).toEqual([
      'RK4 1 ms',
      'Euler 5 ms',
      'real-world spread (ISRR 2019)',
    ]);
    expect(rows[0]!['mean diff mm']).toBe(0);
    expect(rows[0]!['cost vs reference']).toBe(1);
    // A different integrator and step moves the pushed object, by less than a push's real spread.
    expect(rows[1]!['mean diff mm']).toBeGreaterThan(0);
    expect(rows[1]!['mean diff mm']).toBeLessThan(rows[2]!['mean diff mm'] as number);
  });
});
