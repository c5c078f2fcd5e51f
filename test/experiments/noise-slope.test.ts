/**
 * `parapush experiment --noise-slope B`: the WAFR noise level an experiment runs at replaces the
 * task file's in the execution world and in the planner's noise model, is recorded in
 * experiment.json, and `experiment verify` reruns with it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunRecords } from '../../src-main/experiments/run-record';
import { experimentTask, readExperimentFile, runExperiment } from '../../src-main/experiments/runner';
import { verifyExperiment } from '../../src-main/experiments/verify';
import { loadTaskFile, type Task } from '../../src-main/planning/task-file';
import { taskForRun, TaskOverrideError } from '../../src-main/planning/task-for-run';
import { repoRoot } from '../helpers/scenes';
import { tinyTask } from '../helpers/tiny-task';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-noise-slope-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const wafr = loadTaskFile(path.join(repoRoot, 'resources/tasks/wafr-low-accuracy.json'));
const isrr = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));

/** wafr-low-accuracy cut to two TAMPC actions with few samples: a few seconds on the coarse model. */
const shortWafr = (): Task => tinyTask(wafr.task);

describe('noise slope override', () => {
  it("replaces the task's slope for the world and the planners, keeps its reading, and refuses other noise", () => {
    const task = experimentTask(wafr.task, { noiseSlope: 0.05 });
    const reading = 'variance-per-step';
    expect(task.execution.noise).toEqual({ kind: 'action-proportional', slope: 0.05, reading });
    expect(wafr.task.execution.noise).toEqual({ kind: 'action-proportional', slope: 0.075, reading });
    expect(experimentTask(wafr.task, {})).toBe(wafr.task);
    expect(() => taskForRun(isrr.task, { noiseSlope: 0.05 })).toThrow(TaskOverrideError);
    expect(() => taskForRun(isrr.task, { noiseSlope: 0.05 })).toThrow(
      /constant execution noise, not action-proportional/,
    );
    expect(() => taskForRun(wafr.task, { noiseSlope: -0.1 })).toThrow(/>= 0/);
  });

  it('refuses to start an experiment with a slope its task cannot take, before claiming the folder', async () => {
    const out = path.join(tmp, 'isrr');
    await expect(
      runExperiment({
        task: 'isrr-obstacle',
        models: ['coarse'],
        scenes: 1,
        seed: 1,
        noiseSlope: 0.1,
        taskDef: isrr.task,
        scene: isrr.scene,
        outDir: out,
        shard: { index: 0, count: 1 },
        workers: 1,
      }),
    ).rejects.toThrow(TaskOverrideError);
    expect(() => readExperimentFile(out)).toThrow();
  });

  it('records the slope in experiment.json, changes the runs, and verify reruns with it', async () => {
    const task = shortWafr();
    const base = {
      task: 'wafr-low-accuracy',
      models: ['coarse/tampc'],
      scenes: 1,
      seed: 3,
      taskDef: task,
      scene: wafr.scene,
      shard: { index: 0, count: 1 },
      workers: 1,
    };
    const noisy = path.join(tmp, 'b-0.1');
    const still = path.join(tmp, 'b-0');
    await runExperiment({ ...base, noiseSlope: 0.1, outDir: noisy });
    await runExperiment({ ...base, noiseSlope: 0, outDir: still });
    const file = readExperimentFile(noisy);
    expect(file.noiseSlope).toBe(0.1);
    expect(file.command).toContain('--noise-slope 0.1 ');
    const [a] = readRunRecords(noisy);
    const [b] = readRunRecords(still);
    // Same scene and seeds, another noise level: the world (and what TAMPC expects of it) differ.
    expect(a!.summary.states[0]).toEqual(b!.summary.states[0]);
    expect(a!.summary.states).not.toEqual(b!.summary.states);

    const verify = (dir: string): ReturnType<typeof verifyExperiment> =>
      verifyExperiment({ dir, taskDef: task, scene: wafr.scene });
    expect(await verify(noisy)).toEqual({ ok: true, runs: 1, inputs: null });
    // The same runs claimed to be of another level no longer repeat: verify takes the recorded slope.
    const json = JSON.parse(readFileSync(path.join(noisy, 'experiment.json'), 'utf8')) as object;
    writeFileSync(path.join(noisy, 'experiment.json'), JSON.stringify({ ...json, noiseSlope: 0.05 }));
    const moved = await verify(noisy);
    expect(moved.ok).toBe(false);
  }, 300_000);
});
