/**
 * `parapush experiment status DIR`: how far an experiment is, read from its folders (the runs each
 * shard and the merged folder hold) and, for one submitted to Slurm, from Slurm itself (squeue for
 * the jobs the controller knows, sacct for the accounting record where the cluster keeps one).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { configOf, readExperimentFile, type ExperimentConfig } from './runner';
import {
  logsDir,
  readSlurmRecord,
  runCount,
  shardCounts,
  slurmDir,
  submittedJobs,
  type RunCount,
  type SlurmRecord,
} from './slurm-array';
import { accountedJobs, queuedJobs, SlurmError, type AccountedJob, type QueuedJob } from './slurm-commands';

export interface ExperimentStatus {
  experiment: ExperimentConfig;
  /** The experiment's folder: its runs, and whether the report is written. */
  merged: RunCount & { report: boolean };
  slurm: {
    work: string;
    shards: number;
    cpusPerTask: number;
    submissions: SlurmRecord['submissions'];
    /** Each shard folder's stored runs. */
    shardRuns: RunCount[];
    /** squeue's word, or why there is none (no Slurm commands where status runs). */
    queue: { jobs: QueuedJob[] } | { unavailable: string };
    accounting: { jobs: AccountedJob[] } | { unavailable: string };
  } | null;
}

export class StatusError extends Error {
  override name = 'StatusError';
}

function queueOf(ids: readonly string[]): { jobs: QueuedJob[] } | { unavailable: string } {
  try {
    return { jobs: queuedJobs(ids) };
  } catch (e) {
    if (e instanceof SlurmError) return { unavailable: e.message };
    throw e;
  }
}

export function experimentStatus(dir: string): ExperimentStatus {
  const work = slurmDir(dir);
  const record = readSlurmRecord(work);
  const experiment =
    record?.experiment ??
    (existsSync(path.join(dir, 'experiment.json')) ? configOf(readExperimentFile(dir)) : null);
  if (!experiment)
    throw new StatusError(`${dir} holds no experiment (no experiment.json), and ${work} no Slurm submission`);
  const merged = { ...runCount(dir, experiment), report: existsSync(path.join(dir, 'summary.json')) };
  if (!record) return { experiment, merged, slurm: null };
  const jobs = submittedJobs(record);
  return {
    experiment,
    merged,
    slurm: {
      work,
      shards: record.shards,
      cpusPerTask: record.cpusPerTask,
      submissions: record.submissions,
      shardRuns: shardCounts(work, experiment, record.shards),
      queue: queueOf(jobs),
      accounting: accountedJobs(jobs),
    },
  };
}

const runsText = (c: RunCount): string =>
  `${c.done}/${c.total} runs${c.done === c.total ? ', complete' : ''}`;

export function statusText(dir: string, s: ExperimentStatus): string {
  const e = s.experiment;
  const lines = [
    `${e.task}: ${e.models.join(', ')} on ${e.scenes} scenes, seed ${e.seed}`,
    `${dir}: ${runsText(s.merged)}${s.merged.report ? ', report written' : ''}`,
  ];
  if (!s.slurm) return `${lines.join('\n')}\n`;
  const w = s.slurm;
  lines.push(`${w.work}: ${w.shards} shards of ${w.cpusPerTask} CPUs, logs in ${logsDir(w.work)}`);
  w.shardRuns.forEach((c, i) => lines.push(`  shard ${i}: ${runsText(c)}`));
  lines.push('submissions (array job, its shards, merge job):');
  for (const sub of w.submissions)
    lines.push(`  ${sub.array ?? '-'} [${sub.shards.join(',')}] -> ${sub.merge ?? 'not submitted'}`);
  lines.push('squeue (jobs the controller knows):');
  if ('unavailable' in w.queue) lines.push(`  ${w.queue.unavailable}`);
  else if (w.queue.jobs.length === 0) lines.push('  none');
  else for (const j of w.queue.jobs) lines.push(`  ${j.id} ${j.state} ${j.elapsed} ${j.reason}`);
  lines.push('sacct:');
  if ('unavailable' in w.accounting) lines.push(`  ${w.accounting.unavailable}`);
  else for (const j of w.accounting.jobs) lines.push(`  ${j.id} ${j.state} ${j.elapsed} exit ${j.exitCode}`);
  return `${lines.join('\n')}\n`;
}
