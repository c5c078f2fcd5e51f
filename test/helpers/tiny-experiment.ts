/**
 * An experiment recorded as `parapush experiment --sessions` records one, cut down to seconds: for
 * the tests of what its session log holds.
 */
import path from 'node:path';
import { runExperiment } from '../../src-main/experiments/runner';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { repoRoot } from './scenes';
import { tinyTask } from './tiny-task';

/**
 * isrr-obstacle on the coarse model (tinyTask: two actions, three rollouts), one scene, seed 3, one
 * worker: its run record in `outDir`, its session log in `outDir`/sessions, the folder returned.
 */
export async function recordedTinyExperiment(outDir: string): Promise<string> {
  const isrr = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));
  const sessionsDir = path.join(outDir, 'sessions');
  await runExperiment({
    task: 'isrr-obstacle',
    models: ['coarse'],
    scenes: 1,
    seed: 3,
    taskDef: tinyTask(isrr.task),
    scene: isrr.scene,
    workers: 1,
    outDir,
    sessionsDir,
    shard: { index: 0, count: 1 },
  });
  return sessionsDir;
}
