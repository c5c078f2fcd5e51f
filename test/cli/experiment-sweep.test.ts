/**
 * `parapush experiment sweep` as a user runs it: the experiment command's options, one folder per
 * noise level and the sweep's report; and `--noise-slope` on a task that cannot take one.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cliWithin } from '../helpers/cli';
import { writeTinyTaskFile } from '../helpers/tiny-task';

vi.setConfig({ testTimeout: 240_000 });
const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-sweep-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const cli = (...args: string[]) => cliWithin(230, ...args);

/** The CLI tests' tiny task with WAFR's action-proportional noise or constant noise. */
const taskFile = (name: string, noise: object): string => writeTinyTaskFile(tmp, name, noise);

describe('parapush experiment sweep', () => {
  it('runs the experiment per level into OUT/b-<b>, then writes the sweep report', async () => {
    const task = taskFile('tiny-wafr', { kind: 'action-proportional', slope: 0.075 });
    const out = path.join(tmp, 'sweep');
    const args = ['experiment', 'sweep', '--task', task, '--models', 'coarse', '--scenes', '1'];
    const r = await cli(...args, '--workers', '1', '--noise-slopes', '0,0.1', '--out', out);
    expect(r.stderr).toMatch(/b = 0 coarse scene 0: /);
    expect(r.stderr).toMatch(/b = 0\.1 coarse scene 0: /);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\| \[0\.1\]\(b-0\.1\/results\.md\) \| coarse \| 1 \|/m);
    for (const f of ['sweep.json', 'results.md', 'success.svg', 'task-time.svg', 'b-0/experiment.json'])
      expect(existsSync(path.join(out, f)), f).toBe(true);
    const level = JSON.parse(readFileSync(path.join(out, 'b-0.1/experiment.json'), 'utf8')) as {
      noiseSlope: number;
      command: string;
    };
    expect(level.noiseSlope).toBe(0.1);
    expect(level.command).toMatch(/ --noise-slope 0\.1 --out /);

    const report = await cli('experiment', 'sweep', '--report', '--out', out);
    expect(report.code).toBe(0);
    expect(report.stdout).toBe(`${readFileSync(path.join(out, 'results.md'), 'utf8')}\n`);
  });

  it('refuses a noise slope for a task whose noise is not action-proportional', async () => {
    const task = taskFile('tiny-isrr', { kind: 'constant', variance: 0 });
    const r = await cli('experiment', 'sweep', '--task', task, '--out', path.join(tmp, 'no'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'parapush: --noise-slopes: task tiny-isrr has constant execution noise, not action-proportional: a noise slope applies to the WAFR tasks only\n',
    );
    expect(existsSync(path.join(tmp, 'no'))).toBe(false);
  });
});
