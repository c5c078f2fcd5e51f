/**
 * experiment.json records the content hashes of an experiment's input files, and `experiment
 * verify` names the file that changed: a tiny experiment in a temp folder on a scene file of its
 * own, that scene edited in place, then verified. Committed experiments recorded no hashes: verify
 * says once that it did not check them.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkInputs,
  currentInputs,
  describeInputCheck,
  recordInputs,
} from '../../src-main/experiments/provenance';
import { claimOutDir, readExperimentFile, runExperiment } from '../../src-main/experiments/runner';
import { describeDifference, verifyExperiment } from '../../src-main/experiments/verify';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { repoRoot } from '../helpers/scenes';
import { shortScene, writeTinyTaskFile } from '../helpers/tiny-task';

let tmp: string;
let taskFile: string;
let sceneFile: string;
const out = () => path.join(tmp, 'experiment');
const models = ['coarse'];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'parapush-verify-inputs-'));
  sceneFile = path.join(tmp, 'scene.json');
  copyFileSync(shortScene, sceneFile);
  taskFile = writeTinyTaskFile(tmp, 'tiny', { kind: 'constant', variance: 0 });
  const task = JSON.parse(readFileSync(taskFile, 'utf8')) as { scene: string };
  writeFileSync(taskFile, JSON.stringify({ ...task, scene: 'scene.json' }));
  const loaded = loadTaskFile(taskFile);
  await runExperiment({
    task: 'tiny',
    models,
    scenes: 1,
    seed: 1,
    taskDef: loaded.task,
    scene: loaded.scene,
    inputs: recordInputs({ taskFile, sceneFile: loaded.sceneFile, models }),
    workers: 1,
    outDir: out(),
    shard: { index: 0, count: 1 },
  });
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Verifies the experiment with the task and scene as they are on disk now. */
async function verifyNow() {
  const loaded = loadTaskFile(taskFile);
  return verifyExperiment({
    dir: out(),
    taskDef: loaded.task,
    scene: loaded.scene,
    inputs: { taskFile, sceneFile: loaded.sceneFile },
  });
}

describe('input files in experiment.json', () => {
  it('records the task and scene files with their content hashes', () => {
    const { inputs } = readExperimentFile(out());
    expect(inputs?.map((i) => [i.role, i.file])).toEqual([
      ['task', taskFile],
      ['scene', sceneFile],
    ]);
    expect(inputs?.every((i) => /^[0-9a-f]{64}$/.test(i.sha256))).toBe(true);
  });

  it('names shipped inputs relative to the checkout, and the learned model for @learned models', () => {
    const isrr = path.join(repoRoot, 'resources/tasks/isrr-obstacle.json');
    const files = currentInputs({
      taskFile: isrr,
      sceneFile: path.join(repoRoot, 'resources/scenes/isrr-obstacle.json'),
      models: ['coarse', 'parareal:1@learned'],
      learnedModelDir: path.join(repoRoot, 'resources/models/cvs-learned'),
      root: repoRoot,
    }).map((i) => [i.role, i.file]);
    expect(files).toEqual([
      ['task', 'resources/tasks/isrr-obstacle.json'],
      ['scene', 'resources/scenes/isrr-obstacle.json'],
      ['model', 'resources/models/cvs-learned/model.json'],
    ]);
  });

  it('verify checks the inputs and passes while they and the runs are as recorded', async () => {
    const result = await verifyNow();
    expect(result).toMatchObject({ ok: true, runs: 1, inputs: { recorded: true, changed: [] } });
  }, 120_000);

  it('verify names a scene file edited in place, beside the first difference it causes', async () => {
    const before = readFileSync(sceneFile, 'utf8');
    try {
      const scene = JSON.parse(before) as { goal: { center: { x: number } } };
      scene.goal.center.x += 0.02;
      writeFileSync(sceneFile, JSON.stringify(scene, null, 2));
      const result = await verifyNow();
      expect(result.inputs).toMatchObject({
        recorded: true,
        changed: [{ recorded: { role: 'scene', file: sceneFile } }],
      });
      const lines = describeInputCheck(result.inputs!);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^scene file ${sceneFile} differs from the one the experiment ran: sha256 [0-9a-f]{12} recorded, [0-9a-f]{12} now$`,
        ),
      );
      // The runs no longer repeat either: the goal moved.
      expect(result.ok).toBe(false);
      if (!result.ok) expect(describeDifference(result.difference)).toMatch(/^scene 0, coarse/);
      // Nor does a resume take runs of the edited scene into the folder.
      const loaded = loadTaskFile(taskFile);
      expect(() =>
        claimOutDir(
          out(),
          { task: 'tiny', models, scenes: 1, seed: 1 },
          readExperimentFile(out()).commit,
          recordInputs({ taskFile, sceneFile: loaded.sceneFile, models }),
        ),
      ).toThrow(/holds another experiment: its runs read other input files/);
    } finally {
      writeFileSync(sceneFile, before);
    }
  }, 120_000);

  it('says once that a committed experiment, recorded before hashes, had its inputs not checked', () => {
    const committed = readExperimentFile(path.join(repoRoot, 'docs/experiments/isrr-obstacle-async'));
    const check = checkInputs(committed.inputs, []);
    expect(check).toEqual({ recorded: false });
    expect(describeInputCheck(check)).toEqual([
      'input files not checked: this experiment.json records no hashes of its task, scene and model files',
    ]);
  });
});
