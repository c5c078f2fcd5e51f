/** Where the console finds its files, relative to the repository (or the unpacked app). */
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';

/** src-main/common -> repository root; out/main (the bundled shell) -> the same root. */
export const appRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const rendererOutDir = path.join(appRoot, 'out', 'renderer');
/** The shipped resources: read only; nothing the console or the command line saves lands in them. */
export const resourcesDir = path.join(appRoot, 'resources');
export const scenesDir = path.join(resourcesDir, 'scenes');
export const tasksDir = path.join(resourcesDir, 'tasks');
/** The task of a console run on a scene without a task file of its own (planning/task-for-run.ts). */
export const defaultTaskFile = path.join(resourcesDir, 'default-task.json');
/** The learned coarse model shipped with Parapush (trained by `parapush learn train`). */
export const shippedLearnedModelDir = path.join(resourcesDir, 'models', 'cvs-learned');

/** The learned coarse model runs use: $PARAPUSH_LEARNED_MODEL (a model of your own), else the shipped one. */
export function learnedModelDirInUse(env: NodeJS.ProcessEnv = process.env): string {
  return env.PARAPUSH_LEARNED_MODEL ?? shippedLearnedModelDir;
}

/** Overrides the folder of the operator's own scenes (tests, lab machines with a shared disk). */
export const USER_SCENES_ENV = 'PARAPUSH_SCENES_DIR';

/**
 * The operator's own scenes, saved from the console: $PARAPUSH_SCENES_DIR, else ~/.parapush/scenes
 * (beside sessions/ and setups/).
 */
export function userScenesDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[USER_SCENES_ENV];
  return override && override.length > 0
    ? path.resolve(override)
    : path.join(os.homedir(), '.parapush', 'scenes');
}

/** Whether `file` is `dir` or lies inside it. */
export function isInside(file: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
