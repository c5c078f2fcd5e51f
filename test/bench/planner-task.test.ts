import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlannerArgs, recordedStates } from '../../bench/planner';
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

  it('reads --task with small defaults and the task default model', () => {
    expect(parsePlannerArgs(['--task', 'wafr-clutter'])).toEqual({
      task: 'wafr-clutter',
      steps: 3,
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
  it.each(tasks)('%s: a committed fine-model run, on the scene it was drawn in', (name) => {
    const { task, scene } = loadTaskFile(path.resolve(`resources/tasks/${name}.json`));
    const r = recordedStates(name, task, scene, 3);
    expect(r.source).toMatch(/ fine(\/\w+)? scene 0$/);
    expect(r.along.length).toBeGreaterThan(0);
    expect(r.along.length).toBeLessThanOrEqual(3);
    expect(r.uPrev).toHaveLength(r.along.length);
    // The drawn scene fits the states: as many objects, and the robot the task's.
    for (const x of r.along) expect(x.length).toBe(layoutForScene(r.scene).size);
  });

  it('says so when no experiment of the task is committed', () => {
    const { task, scene } = loadTaskFile(path.resolve('resources/tasks/isrr-obstacle.json'));
    expect(() => recordedStates('isrr-obstacle', task, scene, 3, path.resolve('test'))).toThrow(
      /no committed fine-model run of isrr-obstacle/,
    );
  });
});
