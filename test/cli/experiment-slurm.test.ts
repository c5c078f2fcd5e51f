/**
 * `parapush experiment slurm` and `experiment status` without a cluster: the scripts a dry run
 * prints, which shards a resubmission runs (those a folder does not hold complete), the options it
 * refuses, and the progress of a folder. The real cluster's test is test/experiments/slurm.test.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shardDir, slurmDir } from '../../src-main/experiments/slurm-array';
import { arrayWallTime } from '../../src-main/experiments/slurm-sizing';
import { arrayList } from '../../src-main/experiments/slurm-scripts';
import { cli } from '../helpers/cli';
import { writeTinyTaskFile } from '../helpers/tiny-task';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-slurm-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const task = writeTinyTaskFile(tmp, 'tiny', { kind: 'constant', variance: 0 });
const out = path.join(tmp, 'exp');
const experiment = ['--task', task, '--models', 'coarse', '--scenes', '4', '--seed', '1'];
const slurm = (...extra: string[]) => cli('experiment', 'slurm', ...experiment, '--out', out, ...extra);

describe('parapush experiment slurm', () => {
  it('--dry-run prints the array and merge scripts and their sbatch lines, and writes nothing', async () => {
    const r = await slurm('--shards', '4', '--time', '1:00:00', '--partition', 'short', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    const work = slurmDir(out);
    expect(r.stdout).toContain(`# sbatch --parsable ${work}/array.sh\n#!/bin/bash\n`);
    for (const line of [
      '#SBATCH --array=0-3',
      '#SBATCH --cpus-per-task=2',
      '#SBATCH --partition=short',
      '#SBATCH --time=1:00:00',
      `#SBATCH --output=${work}/logs/shard-%a.log`,
      `#SBATCH --chdir=${path.resolve('.')}`,
    ])
      expect(r.stdout).toContain(`${line}\n`);
    expect(r.stdout).toMatch(
      new RegExp(
        `^exec \\S+ \\S+/bin/parapush\\.mjs experiment --task ${task} --models coarse --scenes 4 --seed 1 --workers "\\$SLURM_CPUS_PER_TASK" --shard "\\$SLURM_ARRAY_TASK_ID/4" --out ${work}/shard-"\\$SLURM_ARRAY_TASK_ID"$`,
        'm',
      ),
    );
    expect(r.stdout).toContain(
      `# sbatch --parsable --dependency=afterok:<array job id> --kill-on-invalid-dep=yes ${work}/merge.sh\n`,
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `^exec \\S+ \\S+ experiment merge ${[0, 1, 2, 3].map((i) => shardDir(work, i)).join(' ')} --into ${out}$`,
        'm',
      ),
    );
    expect(existsSync(work)).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  it('a resubmission runs only the shards whose folders are not complete', async () => {
    const work = slurmDir(out);
    for (const i of [1, 3]) {
      const r = await cli(
        'experiment',
        ...experiment,
        '--workers',
        '1',
        '--shard',
        `${i}/4`,
        '--out',
        shardDir(work, i),
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const r = await slurm('--shards', '4', '--dry-run');
    expect(r.stdout).toContain('#SBATCH --array=0,2\n');
    expect(r.stdout).toContain('--dependency=afterok:<array job id>');
    expect(arrayList([5, 0, 2, 3, 4, 9])).toBe('0,2-5,9');

    const status = await cli('experiment', 'status', shardDir(work, 1));
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^tiny: coarse on 4 scenes, seed 1$/m);
    // A shard folder is an experiment folder of its own: status counts every scene of the experiment.
    expect(status.stdout).toContain(`${shardDir(work, 1)}: 1/4 runs, report written\n`);
  });

  it.each([
    [['--shards', '5'], '--shards: 5 shards of 4 scenes would leave some empty'],
    [
      ['--shards', '2', '--workers', '2'],
      '--workers: each task runs one worker per CPU; give --cpus-per-task',
    ],
    [['--shards', '2', '--shard', '1/2'], '--shard: the array gives each task its shard'],
    [
      ['--shards', '2', '--time', '2h'],
      `--time: expected Slurm's format (minutes, HH:MM:SS or D-HH:MM:SS), got "2h"`,
    ],
    [['--shards', '0'], '--shards: expected a whole number >= 1, got "0"'],
    [
      ['--shards', '2', '--partition', 'a b'],
      '--partition: expected a partition name (or a comma-separated list), got "a b"',
    ],
  ])('refuses %j', async (extra, message) => {
    const r = await slurm(...extra, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`parapush: ${message}\n`);
  });

  it('status names a folder that holds no experiment', async () => {
    const r = await cli('experiment', 'status', path.join(tmp, 'nothing'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /nothing holds no experiment \(no experiment\.json\), and .*nothing\.slurm no Slurm submission/,
    );
  });
});

describe('sizing an array', () => {
  it('a shard runs ceil(scenes / shards) scenes of every model', () => {
    expect(arrayWallTime(51.1, 200, 1)).toBeCloseTo(10220, 9);
    expect(arrayWallTime(10, 200, 100)).toBe(20);
    expect(arrayWallTime(10, 200, 30)).toBe(70);
  });
});
