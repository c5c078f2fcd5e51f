/**
 * A task file cannot make a control long enough to leave obstacle contact unjudged for seconds, nor
 * plan or run without bound: controlDuration, the horizon and the action limit are bounded, and
 * a file over a bound is refused naming the field.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTask } from '../../src-main/planning/task-file';
import { plannerSettingsSchema } from '#contract/planner-settings';
import { repoRoot } from '../helpers/scenes';

const base = JSON.parse(readFileSync(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'), 'utf8')) as {
  planner: Record<string, unknown>;
};
const withPlanner = (planner: Record<string, unknown>) => ({
  ...base,
  planner: { ...base.planner, ...planner },
});

describe('task file bounds', () => {
  it('accepts the shipped task and a 2 s control', () => {
    expect(parseTask(base).planner.controlDuration).toBe(1);
    expect(parseTask(withPlanner({ controlDuration: 2 })).planner.controlDuration).toBe(2);
  });

  it.each([
    [{ controlDuration: 3 }, 'planner.controlDuration: must be at most 2 s'],
    [{ maxExecutedActions: 1001 }, 'planner.maxExecutedActions: must be at most 1000'],
    [{ horizon: 51 }, 'planner.horizon: must be at most 50'],
  ])('refuses %o naming the field', (planner, message) => {
    expect(() => parseTask(withPlanner(planner), 'big.json')).toThrow(message);
  });

  it('bounds the console settings the same way', () => {
    const r = plannerSettingsSchema.shape.controlDuration.safeParse(2.5);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('must be at most 2 s');
  });
});
