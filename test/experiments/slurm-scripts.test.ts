/**
 * The array job's command line: every option that gives the experiment its identity, so a shard
 * on the cluster runs the runs a local run of the same command makes.
 */
import { describe, expect, it } from 'vitest';
import { arrayScript, type SlurmJobs } from '../../src-main/experiments/slurm-scripts';

const jobs = (config: SlurmJobs['config']): SlurmJobs => ({
  config,
  task: config.task,
  out: 'out',
  work: 'out.slurm',
  shards: 2,
  indices: [0, 1],
  cpusPerTask: 2,
  sessions: false,
  cwd: '/lab',
  node: '/usr/bin/node',
  cli: '/lab/bin/parapush.mjs',
});

const command = (script: string): string => script.split('\n').find((l) => l.startsWith('exec '))!;

describe('arrayScript', () => {
  it("passes the experiment's noise slope and reading on to every shard", () => {
    const base = { task: 'wafr-low-accuracy', models: ['fine/mpc'], scenes: 30, seed: 1 };
    const plain = command(arrayScript(jobs(base)));
    expect(plain).not.toMatch(/--noise/);
    const noisy = command(arrayScript(jobs({ ...base, noiseSlope: 0.1, noiseReading: 'std' })));
    expect(noisy).toContain(
      'experiment --task wafr-low-accuracy --models fine/mpc --scenes 30 --seed 1 --noise-slope 0.1 --noise-reading std --workers',
    );
  });
});
