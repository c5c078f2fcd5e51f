/**
 * The batch scripts of an experiment on Slurm: a job array whose task i runs the experiment
 * command with `--shard i/n` into OUT.slurm/shard-i, and a merge job that joins the shard folders
 * into OUT with `experiment merge`. Both run the node binary and the checkout that submitted them
 * (on the cluster's shared filesystem): the same code and the same node give the same runs.
 */
import path from 'node:path';
import type { ExperimentConfig } from './runner';
import { logsDir, shardDir, shardPrefix } from './slurm-array';

export interface SlurmJobs {
  config: ExperimentConfig;
  /** The experiment's --task as the user gave it: a shipped task's name or a task file. */
  task: string;
  /** The experiment's folder, as given (relative paths are relative to `cwd`). */
  out: string;
  /** OUT.slurm (slurm-array.ts). */
  work: string;
  shards: number;
  /** Shards this submission runs (all, or the incomplete ones of a resubmission). */
  indices: readonly number[];
  cpusPerTask: number;
  sessions: boolean;
  partition?: string;
  time?: string;
  /** Where the jobs start (absolute): the submitting shell's folder. */
  cwd: string;
  /** The node binary and bin/parapush.mjs that run the jobs (absolute). */
  node: string;
  cli: string;
}

/** A word for bash, quoted only when it needs to be. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Slurm's --array list: 0-3, or 1,3,5-7 for a resubmission's incomplete shards. */
export function arrayList(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The experiment's identity as command-line options; with the same code they make the same runs. */
function experimentOptions(jobs: SlurmJobs): string[] {
  const c = jobs.config;
  return [
    '--task',
    jobs.task,
    '--models',
    c.models.join(','),
    '--scenes',
    String(c.scenes),
    '--seed',
    String(c.seed),
    ...(c.loopMode === 'asynchronous' ? ['--async'] : []),
    ...(c.noiseSlope !== undefined ? ['--noise-slope', String(c.noiseSlope)] : []),
    ...(c.noiseReading !== undefined ? ['--noise-reading', c.noiseReading] : []),
    ...(jobs.sessions ? ['--sessions'] : []),
  ];
}

const jobName = (jobs: SlurmJobs): string => `parapush-${jobs.config.task.replace(/[^\w.-]/g, '-')}`;

function directives(jobs: SlurmJobs, own: readonly string[]): string[] {
  return [
    ...own,
    ...(jobs.partition ? [`--partition=${jobs.partition}`] : []),
    ...(jobs.time ? [`--time=${jobs.time}`] : []),
    `--chdir=${jobs.cwd}`,
    // A resubmitted task appends to its shard's log: the earlier attempt's lines stay readable.
    '--open-mode=append',
  ].map((d) => `#SBATCH ${d}`);
}

const program = (jobs: SlurmJobs): string => `${shellWord(jobs.node)} ${shellWord(jobs.cli)}`;

export function arrayScript(jobs: SlurmJobs): string {
  const shardOut = `${shellWord(shardPrefix(jobs.work))}"$SLURM_ARRAY_TASK_ID"`;
  return [
    '#!/bin/bash',
    `# ${jobs.config.task}: array task i runs shard i/${jobs.shards} of the experiment into ${shardPrefix(jobs.work)}i.`,
    '# Written by `parapush experiment slurm`; the same command resubmits the shards that did not',
    '# finish, and their stored runs are kept (the experiment resumes).',
    ...directives(jobs, [
      `--job-name=${jobName(jobs)}`,
      `--array=${arrayList(jobs.indices)}`,
      '--ntasks=1',
      `--cpus-per-task=${jobs.cpusPerTask}`,
      `--output=${path.join(logsDir(jobs.work), 'shard-%a.log')}`,
    ]),
    [
      'exec',
      program(jobs),
      'experiment',
      ...experimentOptions(jobs).map(shellWord),
      '--workers "$SLURM_CPUS_PER_TASK"',
      `--shard "$SLURM_ARRAY_TASK_ID/${jobs.shards}"`,
      `--out ${shardOut}`,
    ].join(' '),
    '',
  ].join('\n');
}

export function mergeScript(jobs: SlurmJobs): string {
  const shards = Array.from({ length: jobs.shards }, (_, i) => shellWord(shardDir(jobs.work, i)));
  return [
    '#!/bin/bash',
    `# ${jobs.config.task}: joins the ${jobs.shards} shard folders into ${jobs.out} and writes its report.`,
    '# Written by `parapush experiment slurm`; it runs once every array task has succeeded.',
    ...directives(jobs, [
      `--job-name=${jobName(jobs)}-merge`,
      '--ntasks=1',
      '--cpus-per-task=1',
      `--output=${path.join(logsDir(jobs.work), 'merge.log')}`,
    ]),
    ['exec', program(jobs), 'experiment merge', ...shards, '--into', shellWord(jobs.out)].join(' '),
    '',
  ].join('\n');
}
