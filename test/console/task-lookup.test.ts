/**
 * A console run's task is looked up by the scene's name, which is free text (a scene imported
 * over the console API names itself). Only the ids of the shipped task files may match: a name
 * that climbs out of the tasks folder must neither read the file it points at nor echo it back.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseTask, shippedTaskFile } from '../../src-main/planning/task-for-run';
import { referenceScene, repoRoot } from '../helpers/scenes';

const shipped = path.join(repoRoot, 'resources/tasks');
const root = mkdtempSync(path.join(tmpdir(), 'parapush-task-lookup-'));
const tasksDir = path.join(root, 'resources', 'tasks');
mkdirSync(tasksDir, { recursive: true });
// JSON outside the tasks folder that a traversing name would reach.
writeFileSync(path.join(root, 'secret.json'), JSON.stringify({ apiKey: 'do-not-echo-me' }));
// A folder named like a task file is not a task file.
mkdirSync(path.join(tasksDir, 'folder.json'));

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('task lookup by scene name', () => {
  it('finds the shipped task files by their ids', () => {
    expect(shippedTaskFile(shipped, 'isrr-obstacle')).toBe(path.join(shipped, 'isrr-obstacle.json'));
    expect(shippedTaskFile(shipped, 'no-such-task')).toBeNull();
  });

  it('never turns a name that is not a task id into a path', () => {
    for (const name of [
      '../../secret',
      '../secret',
      '../tasks/isrr-obstacle',
      'isrr-obstacle/../isrr-obstacle',
      '/etc/passwd',
      'ISRR-OBSTACLE',
      'isrr-obstacle ',
      'isrr-obstacle.json',
      '',
    ]) {
      expect(shippedTaskFile(shipped, name), name).toBeNull();
    }
    expect(shippedTaskFile(tasksDir, 'folder')).toBeNull();
  });

  it('plans a scene named "../../secret" with the default task, without reading the file', () => {
    const scene = { ...referenceScene('isrr-obstacle'), name: '../../secret' };
    const task = baseTask(scene, tasksDir);
    expect(task.name).toBe('../../secret (console default)');
    expect(JSON.stringify(task)).not.toContain('do-not-echo-me');
  });
});
