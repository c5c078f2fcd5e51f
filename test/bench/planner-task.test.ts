import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlannerArgs, recordedStates } from '../../bench/planner';
import { fineRuns } from '../../bench/recorded-runs';
import { layoutForScene } from '#contract/state';
import { loadTaskFile } from '../../src-main/planning/task-file';

describe('planner benchmark arguments', () => {
  it('keeps the positional form for isrr-obstacle', () => {
    expect(parsePlannerArgs([])).toEqual({
      task: null,
      steps: 5,
      workers: [1, 2, 4, 8, 15],
      models: ['coarse', 'parareal:1', 'parareal:2', 'parareal:3', 'fine', 'auto'],
    });
    expect(parsePlannerArgs(['2', '1,2', 'fine'])).toEqual({
      task: null,
      steps: 2,
      workers: [1, 2],
      models: ['fine'],
    });
  });

  it('reads --task with its defaults and the task default model', () => {
    expect(parsePlannerArgs(['--task', 'wafr-clutter'])).toEqual({
      task: 'wafr-clutter',
      steps: 10,
      workers: [2],
      models: ['auto'],
    });
    expect(
      parsePlannerArgs(['--task', 'wafr-clutter', '--models', 'fine/mpc,fine/uampc', '--steps', '1']),
    ).toMatchObject({ steps: 1, models: ['fine/mpc', 'fine/uampc'] });
    expect(() => parsePlannerArgs(['--task', 'x', '--step', '2'])).toThrow(/cannot read/);
    expect(() => parsePlannerArgs(['--task', 'x', '--steps', '0'])).toThrow(/--steps/);
  });
});

describe('states the task benchmark plans from', () => {
  const tasks = [
    'isrr-obstacle',
    'cvs-multi-object',
    'wafr-changing',
    'wafr-clutter',
    'wafr-high-accuracy',
    'wafr-l-shape',
    'wafr-low-accuracy',
  ];
  it.each(tasks)(
    '%s: states its committed runs planned from, spread over them, each on its scene',
    (name) => {
      const { task, scene } = loadTaskFile(path.resolve(`resources/tasks/${name}.json`));
      const segments = recordedStates(name, task, scene, 12);
      expect(segments.reduce((n, seg) => n + seg.along.length, 0)).toBe(12);
      const runs = fineRuns(name, task, scene);
      const own = runs.filter((r) => r.record.planner === task.planner.kind);
      for (const seg of segments) {
        const run = runs.find((r) => r.source === seg.run.source)!;
        expect(run.record.planner).toBe(task.planner.kind);
        const { states, controls, planningTimes } = run.record.summary;
        seg.indices.forEach((i, k) => {
          // A state the run planned from: not its last, not a reflex step.
          expect(planningTimes[i]).toBeGreaterThan(0);
          expect(Array.from(seg.along[k]!)).toEqual(states[i]);
          if (i > 0) expect(seg.uPrev[k]).toEqual(controls[i - 1]);
          else expect(seg.uPrev[k]!.every((v) => v === 0)).toBe(true);
        });
        // The drawn scene fits the states: as many objects, and the robot the task's.
        for (const x of seg.along) expect(x.length).toBe(layoutForScene(seg.run.scene).size);
      }
      // Spread over the runs in scene order, not the first run's first states.
      const scenes = segments.map((seg) => seg.run.record.scene);
      expect([...scenes].sort((a, b) => a - b)).toEqual(scenes);
      if (own.length >= 12) expect(segments.length).toBeGreaterThan(1);
    },
  );

  it('says so when no experiment of the task is committed', () => {
    const { task, scene } = loadTaskFile(path.resolve('resources/tasks/isrr-obstacle.json'));
    expect(() => recordedStates('isrr-obstacle', task, scene, 3, path.resolve('test'))).toThrow(
      /no committed fine-model run of isrr-obstacle/,
    );
  });
});
