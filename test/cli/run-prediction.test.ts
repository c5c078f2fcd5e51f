/**
 * `parapush run --prediction INTEGRATOR:MS`: the planner's fine model from the command line, checked
 * by the task file's own schema; a bad value exits 2 with one line that names the field, before
 * anything connects to the lab.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskOfOptions } from '../../src-main/cli/commands/run';
import { UsageError } from '../../src-main/cli/errors';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { cli, cliRunIsrr } from '../helpers/cli';
import { repoRoot } from '../helpers/scenes';

const taskFile = path.join(repoRoot, 'resources/tasks/isrr-obstacle.json');
const { task } = loadTaskFile(taskFile);
const { planner } = task;
/** The planner `parapush run --prediction SPEC` plans with. */
const withPrediction = (spec: string) => taskOfOptions(task, { prediction: spec }).planner;

describe('parapush run --prediction', () => {
  it('replaces the task file prediction: RK4:1, euler:2 (any case), implicitfast:0.5', () => {
    expect(withPrediction('RK4:1').prediction).toEqual({ integrator: 'RK4', timestep: 0.001 });
    expect(withPrediction('euler:2').prediction).toEqual({ integrator: 'Euler', timestep: 0.002 });
    expect(withPrediction(' implicitfast : 0.5 ').prediction).toEqual({
      integrator: 'implicitfast',
      timestep: 0.0005,
    });
    // The rest of the planner is the task file's.
    const { prediction: _, ...rest } = withPrediction('RK4:1');
    const { prediction: __, ...expected } = planner;
    expect(rest).toEqual(expected);
  });

  it.each([
    ['RK4:0.05', '--prediction: timestep: must be at least 0.0001 s (got 0.05 ms)'],
    ['Euler:20', '--prediction: timestep: must be at most 0.01 s (got 20 ms)'],
    ['RK4:3', '--prediction: timestep: must divide the control duration (1 s) into whole steps (got 3 ms)'],
    ['Verlet:1', /^--prediction: integrator: .*"RK4"/],
    ['RK4', '--prediction: expected INTEGRATOR:MS (e.g. RK4:1 or Euler:2), got "RK4"'],
    ['RK4:fast', '--prediction: expected INTEGRATOR:MS (e.g. RK4:1 or Euler:2), got "RK4:fast"'],
  ])('refuses %s with the field named', (spec, message) => {
    let thrown: unknown;
    try {
      withPrediction(spec);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(message);
  });

  it('exits 2 with one line naming the field, through bin/parapush.mjs', async () => {
    const r = await cliRunIsrr('--prediction', 'RK4:3');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'parapush: --prediction: timestep: must divide the control duration (1 s) into whole steps (got 3 ms)\n',
    );
  });

  it('lists the flag in the help', async () => {
    const r = await cli('run', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--prediction <INTEGRATOR:MS>/);
  });
});
