/**
 * `parapush experiment sweep` as a user runs it: the experiment command's options, one folder per
 * noise level and the sweep's report; `--noise-reading`, kept by every level and repeated by
 * verify; and `--noise-slope` or `--noise-reading` on a task that cannot take one.
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

  it('reads b|u| as --noise-reading says in every level, and verify reruns a level under that reading', async () => {
    const task = taskFile('tiny-wafr-reading', { kind: 'action-proportional', slope: 0.075 });
    const out = path.join(tmp, 'sweep-reading');
    const args = ['experiment', 'sweep', '--task', task, '--models', 'coarse', '--scenes', '1'];
    const r = await cli(
      ...args,
      '--workers',
      '1',
      '--noise-reading',
      'variance-per-step',
      '--noise-slopes',
      '0.1',
      '--out',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^### tiny-wafr-reading: noise sweep, b\|u\| read as variance-per-step$/m);
    const level = JSON.parse(readFileSync(path.join(out, 'b-0.1/experiment.json'), 'utf8')) as {
      noiseReading: string;
      command: string;
    };
    expect(level.noiseReading).toBe('variance-per-step');
    expect(level.command).toMatch(/ --noise-reading variance-per-step --out /);
    const sweep = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { command: string };
    expect(sweep.command).toMatch(/ --noise-reading variance-per-step --noise-slopes 0\.1 --out /);
    // The task file reads b|u| as std: a verify that dropped the experiment's reading would differ.
    const verify = await cli('experiment', 'verify', path.join(out, 'b-0.1'), '--task-file', task);
    expect(verify.stdout).toMatch(/1 runs repeat bit for bit/);
    expect(verify.code).toBe(0);
  });

  it('refuses a reading the task files do not know, and a reading for noise that is not action-proportional', async () => {
    const refusal = async (task: string, reading: string, out: string): Promise<string> => {
      const r = await cli(
        'experiment',
        '--task',
        task,
        '--noise-reading',
        reading,
        '--out',
        path.join(tmp, out),
      );
      expect(r.code).toBe(2);
      expect(existsSync(path.join(tmp, out))).toBe(false);
      return r.stderr;
    };
    const wafr = taskFile('tiny-wafr-bad', { kind: 'action-proportional', slope: 0.075 });
    expect(await refusal(wafr, 'variance', 'bad')).toBe(
      'parapush: --noise-reading: expected std | variance-per-step | variance-per-second, got "variance"\n',
    );
    const isrr = taskFile('tiny-isrr-reading', { kind: 'constant', variance: 0 });
    expect(await refusal(isrr, 'std', 'no-reading')).toBe(
      'parapush: --noise-reading: task tiny-isrr-reading has constant execution noise, not action-proportional: a noise reading applies to the WAFR tasks only\n',
    );
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
