/**
 * Full-verification records: `verify --full` on a tiny experiment writes what it checked per
 * shard, the shards together cover it, a difference writes nothing, and the results page's state
 * follows the code's history.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../../src-main/experiments/runner';
import {
  fullyVerifiedCommits,
  readVerificationRecords,
  verificationState,
  verifyFull,
  experimentInputs,
  gitHistory,
  type ExperimentHistory,
  type VerificationRecord,
} from '../../src-main/experiments/verification';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { repoRoot } from '../helpers/scenes';
import { tinyTask } from '../helpers/tiny-task';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-verification-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const C1 = 'a'.repeat(40);
const C2 = 'b'.repeat(40);
const record = (commit: string, models: string[], scenes: number[]): VerificationRecord => ({
  commit,
  models,
  scenes,
});

/** A linear history C1 -> C2, whose last results-moving change is `lastChange`, for any inputs. */
const history = (lastChange: string | null): ExperimentHistory => ({
  history: { lastChange: () => lastChange, isAncestor: (a, c) => a === c || (a === C1 && c === C2) },
  inputs: [],
});

describe('full verification state', () => {
  const models = ['fine', 'coarse'];

  it('is full at a commit only when its records cover every scene of every model', () => {
    const shards = [record(C1, models, [0, 2]), record(C1, models, [1])];
    expect(fullyVerifiedCommits(shards, models, 3)).toEqual([C1]);
    expect(fullyVerifiedCommits(shards.slice(0, 1), models, 3)).toEqual([]);
    expect(fullyVerifiedCommits([record(C1, ['fine'], [0, 1, 2])], models, 3)).toEqual([]);
    expect(fullyVerifiedCommits([record(`${C1}-dirty`, models, [0, 1, 2])], models, 3)).toEqual([]);
  });

  // An experiment run before C1 (the runs' commit is no ancestor of C1 or C2 in this history).
  const ranBefore = { commit: 'c'.repeat(40), models, scenes: 3 };

  it('is out of date once a results-moving change comes after it', () => {
    const full = [record(C1, models, [0, 1, 2])];
    expect(verificationState(full, ranBefore, history(C1))).toEqual({ state: 'current', commit: C1 });
    expect(verificationState(full, ranBefore, history(C2))).toEqual({ state: 'older', commit: C1 });
    expect(verificationState([...full, record(C2, models, [0, 1, 2])], ranBefore, history(C2))).toEqual({
      state: 'current',
      commit: C2,
    });
    expect(verificationState([], ranBefore, history(C1))).toEqual({ state: 'none' });
  });

  it("counts an experiment's own runs at a clean commit after the last change, apart from repeats", () => {
    const ranAt = (commit: string) => ({ commit, models, scenes: 3 });
    expect(verificationState([], ranAt(C2), history(C1))).toEqual({ state: 'ran-current', commit: C2 });
    expect(verificationState([], ranAt(C1), history(C2))).toEqual({ state: 'none' });
    expect(verificationState([], ranAt(`${C2}-dirty`), history(C1))).toEqual({ state: 'none' });
    // A repeat at the current code is the stronger statement and wins.
    expect(verificationState([record(C2, models, [0, 1, 2])], ranAt(C2), history(C1))).toEqual({
      state: 'current',
      commit: C2,
    });
    // Runs older than the change leave an older full verification out of date.
    expect(verificationState([record(C1, models, [0, 1, 2])], ranAt(C1), history(C2))).toEqual({
      state: 'older',
      commit: C1,
    });
  });
});

describe("an experiment's results-moving changes", () => {
  it('are the code and its own task and scene files, not another task', () => {
    const isrr = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));
    expect(experimentInputs(isrr, ['fine', 'parareal:1@learned'], repoRoot)).toEqual([
      'resources/tasks/isrr-obstacle.json',
      'resources/scenes/isrr-obstacle.json',
    ]);
  });

  it("age an experiment on its own task's change only", () => {
    const repo = path.join(tmp, 'history');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
    const commitFile = (file: string): string => {
      mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
      writeFileSync(path.join(repo, file), `${file}\n`);
      git('add', file);
      git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', file);
      return git('rev-parse', 'HEAD');
    };
    mkdirSync(repo);
    git('init', '-q');
    const code = commitFile('src-workers/fine-worker.ts');
    const taskA = commitFile('resources/tasks/a.json');
    commitFile('docs/notes.md');
    const history = gitHistory(repo);
    expect(history.lastChange(['resources/tasks/b.json'])).toBe(code);
    expect(history.lastChange(['resources/tasks/a.json'])).toBe(taskA);
    expect(history.isAncestor(code, taskA)).toBe(true);
    expect(history.isAncestor(taskA, code)).toBe(false);
  });
});

describe('verify --full on a tiny experiment', () => {
  it('writes one record per shard, which together cover it; a changed task writes none', async () => {
    const isrr = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));
    const task = tinyTask(isrr.task, { executedActions: 1 });
    const dir = path.join(tmp, 'tiny');
    await runExperiment({
      task: 'isrr-obstacle',
      models: ['coarse'],
      scenes: 2,
      seed: 1,
      taskDef: task,
      scene: isrr.scene,
      workers: 1,
      outDir: dir,
      shard: { index: 0, count: 1 },
    });
    const base = { dir, taskDef: task, scene: isrr.scene, commit: C1 };
    const first = await verifyFull({ ...base, shard: { index: 0, count: 2 } });
    expect(first).toMatchObject({ ok: true, runs: 1 });
    expect(path.basename(first.record!)).toBe('shard-0-of-2.json');
    expect(fullyVerifiedCommits(readVerificationRecords(dir), ['coarse'], 2)).toEqual([]);
    await verifyFull({ ...base, shard: { index: 1, count: 2 } });
    expect(readVerificationRecords(dir)).toEqual([record(C1, ['coarse'], [0]), record(C1, ['coarse'], [1])]);
    expect(fullyVerifiedCommits(readVerificationRecords(dir), ['coarse'], 2)).toEqual([C1]);

    // Stronger execution noise: the same kicks, scaled, move the state after the first action.
    const moved = structuredClone(task);
    moved.execution.noise = { kind: 'constant', variance: 4e-4 };
    const failed = await verifyFull({ ...base, taskDef: moved, commit: C2, shard: { index: 0, count: 1 } });
    expect(failed).toMatchObject({ ok: false, record: null });
    expect(readVerificationRecords(dir).map((r) => r.commit)).toEqual([C1, C1]);
  }, 120_000);
});
