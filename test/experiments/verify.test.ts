import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunRecords, type RunRecord } from '../../src-main/experiments/run-record';
import { compareRuns, describeDifference, verifyExperiment } from '../../src-main/experiments/verify';
import { loadTaskFile, type Task } from '../../src-main/planning/task-file';
import { repoRoot } from '../helpers/scenes';

const isrrDir = path.join(repoRoot, 'docs/experiments/isrr-obstacle');
const isrr = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));
const stored = readRunRecords(isrrDir).find((r) => r.model === 'fine' && r.scene === 0)!;

/** A deep copy with one change, as a rerun on changed code would come back. */
function changed(r: RunRecord, edit: (copy: RunRecord) => void): RunRecord {
  const copy = structuredClone(r);
  edit(copy);
  return copy;
}

describe('compareRuns', () => {
  it('finds no difference between a run and itself, wall-clock figures aside', () => {
    const rerun = changed(stored, (c) => {
      c.wallTime += 3;
      c.summary.taskTime += 1;
      c.summary.planningTimes = c.summary.planningTimes.map((t) => t * 2);
    });
    expect(compareRuns(stored, rerun)).toBeNull();
  });

  it('names the first state that differs, by step and element', () => {
    const rerun = changed(stored, (c) => {
      c.summary.states[4]![2]! += 1e-15;
      c.summary.controls[6]![0]! += 1e-3;
    });
    const d = compareRuns(stored, rerun)!;
    expect(d).toMatchObject({ scene: 0, model: 'fine', step: 4, field: 'state[2]' });
    expect(d.recorded).toBe(stored.summary.states[4]![2]);
    expect(describeDifference(d)).toContain('scene 0, fine step 4: state[2] recorded');
  });

  it('names a control, and an outcome whose states and controls all repeat', () => {
    const control = changed(stored, (c) => (c.summary.controls[1]![1] = 0.5));
    expect(compareRuns(stored, control)).toMatchObject({ step: 1, field: 'control[1]', now: 0.5 });
    const outcome = changed(stored, (c) => (c.summary.outcome = 'action-limit'));
    expect(compareRuns(stored, outcome)).toMatchObject({ step: null, field: 'outcome', now: 'action-limit' });
  });

  it('with maxActions compares the prefix only, and the outcome of a run that ended within it', () => {
    const cut = changed(stored, (c) => {
      c.summary.outcome = 'aborted';
      c.summary.actions = 3;
      c.summary.controls = c.summary.controls.slice(0, 3);
      c.summary.states = c.summary.states.slice(0, 4);
    });
    expect(compareRuns(stored, cut, 3)).toBeNull();
    expect(compareRuns(stored, cut)).toMatchObject({ field: 'outcome', step: 3, now: 'aborted' });
    expect(compareRuns(stored, cut, stored.summary.actions)).not.toBeNull();
  });

  it('compares a run that met the wall-clock time limit only as far as both runs went', () => {
    const timedOut = changed(stored, (c) => {
      c.summary.outcome = 'time-limit';
      c.summary.actions = 5;
      c.summary.controls = c.summary.controls.slice(0, 5);
      c.summary.states = c.summary.states.slice(0, 6);
    });
    expect(compareRuns(stored, timedOut)).toBeNull();
    expect(compareRuns(timedOut, stored)).toBeNull();
    const moved = changed(timedOut, (c) => (c.summary.controls[4]![0] = 0.2));
    expect(compareRuns(stored, moved)).toMatchObject({ step: 4, field: 'control[0]' });
  });
});

/** The task with the goal-distance weight doubled, as a careless edit of the cost code would. */
function heavierGoalDistance(task: Task): Task {
  return {
    ...task,
    costs: task.costs.map((c) => (c.term === 'goal-distance' ? { ...c, weight: c.weight * 2 } : c)),
  };
}

describe('verifyExperiment on a committed experiment', () => {
  // The coarse model's whole run: 20 actions planned in about a second.
  const subset = { dir: isrrDir, taskDef: isrr.task, scene: isrr.scene, models: ['coarse'] };

  it('passes when the current code repeats the stored runs', async () => {
    const notes: string[] = [];
    const result = await verifyExperiment({ ...subset, onProgress: (n) => notes.push(n) });
    expect(result).toEqual({ ok: true, runs: 1, inputs: null });
    expect(notes).toEqual([
      'coarse scene 0: rerunning',
      'coarse scene 0: repeats (20 actions, action-limit)',
    ]);
  }, 120_000);

  it('fails, naming scene, model, step and field, when a cost weight changed', async () => {
    const result = await verifyExperiment({ ...subset, adjustTask: heavierGoalDistance });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.difference).toMatchObject({ scene: 0, model: 'coarse' });
    expect(result.difference.step).toBeGreaterThanOrEqual(0);
    expect(result.difference.field).toMatch(/^(control|state)\[\d+\]$/);
    expect(result.difference.now).not.toBe(result.difference.recorded);
  }, 120_000);
});
