import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planningTable, readPlannerBenches } from '../../src-main/experiments/planning-table';
import { repoRoot } from '../helpers/scenes';

const bench = (task: string, planTime: number, extra: Record<string, unknown> = {}): object => ({
  machine: { cpu: 'x', cores: 2, loadAtStart: 0.4 },
  task,
  planner: 'mpc',
  steps: 3,
  rows: [
    {
      model: 'auto (fine)',
      workers: 2,
      'plan s/step': planTime,
      '±95%': 0.1,
      'control s': 1,
      'real-time': 'x',
    },
  ],
  ...extra,
});

function benchDir(files: Record<string, object>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-bench-'));
  for (const [name, data] of Object.entries(files)) writeFileSync(path.join(dir, name), JSON.stringify(data));
  return dir;
}

describe('the planning-time table', () => {
  it('has a row per task and model, and says whether the mean plan fits in the control', () => {
    const dir = benchDir({
      'planner-slow.json': bench('slow', 2.345),
      'planner-fast.json': bench('fast', 0.8),
      // The positional form of the bench (several models on isrr-obstacle) is not a task's row.
      'planner.json': bench('isrr-obstacle', 9),
    });
    const lines = planningTable(readPlannerBenches(dir)).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe('| fast | mpc | auto (fine) | 2 | 0.80 ± 0.10 | 1 | yes | 3 | 0.4 |');
    expect(lines[3]).toBe('| slow | mpc | auto (fine) | 2 | 2.35 ± 0.10 | 1 | no | 3 | 0.4 |');
  });

  it('names the file and the field of a bench file it cannot read', () => {
    const dir = benchDir({ 'planner-a.json': bench('a', 1, { steps: 0 }) });
    expect(() => readPlannerBenches(dir)).toThrow(/planner-a\.json[\s\S]*steps/);
    const misnamed = benchDir({ 'planner-a.json': bench('b', 1) });
    expect(() => readPlannerBenches(misnamed)).toThrow(/holds task "b"/);
  });

  it('reads every committed planner bench, one per shipped task', () => {
    const tasks = readPlannerBenches(path.join(repoRoot, 'bench/results')).map((b) => b.task);
    const shipped = readdirSync(path.join(repoRoot, 'resources/tasks')).map((f) => f.replace(/\.json$/, ''));
    expect(tasks).toEqual(shipped.sort());
  });
});
