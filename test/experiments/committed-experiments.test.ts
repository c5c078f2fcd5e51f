/**
 * Every committed experiment still repeats on this code: the first scene of each of its models,
 * rerun for its first actions, must reproduce the stored states and controls bit for bit. A change
 * that moves results fails here until the experiments are rerun (`parapush experiment verify DIR`
 * checks more scenes or whole runs).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDifference, verifyExperiment } from '../../src-main/experiments/verify';
import { readExperimentFile } from '../../src-main/experiments/runner';
import { readStaleList } from '../../src-main/experiments/results-page';
import { readLevels } from '../../src-main/experiments/sweep';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { repoRoot } from '../helpers/scenes';

const root = path.join(repoRoot, 'docs/experiments');
/** Experiments that no longer repeat on this code are listed, with why, in stale.json. */
const stale = new Set(readStaleList(repoRoot).map((s) => s.experiment));
/** Experiment folders, and the level folders of noise sweeps (NAME/b-<b>, sweep.ts) as NAME/b-<b>. */
const experiments = readdirSync(root)
  .flatMap((d) =>
    existsSync(path.join(root, d, 'sweep.json'))
      ? readLevels(path.join(root, d)).map((l) => `${d}/${l.folder}`)
      : [d],
  )
  .filter((d) => existsSync(path.join(root, d, 'experiment.json')) && !stale.has(d))
  .sort();

/**
 * Actions rerun per model. The whole set then takes a few minutes on two idle cores, most of it
 * in the fine-model WAFR clutter and CVS runs (2-9 s a step).
 */
const ACTIONS = 3;

describe('committed experiments repeat on this code', () => {
  it('there are experiments to check', () => {
    expect(experiments.length).toBeGreaterThan(0);
  });

  for (const name of experiments) {
    it(`${name}: first scene, first ${ACTIONS} actions of every model`, async () => {
      const dir = path.join(root, name);
      const { task } = readExperimentFile(dir);
      const loaded = loadTaskFile(path.join(repoRoot, 'resources/tasks', `${task}.json`));
      const result = await verifyExperiment({
        dir,
        taskDef: loaded.task,
        scene: loaded.scene,
        maxActions: ACTIONS,
      });
      expect(result.ok ? 'repeats' : describeDifference(result.difference)).toBe('repeats');
    }, 900_000);
  }
});
