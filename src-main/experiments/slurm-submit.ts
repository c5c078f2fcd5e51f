/**
 * Submitting an experiment to Slurm, and resubmitting it: the first submission runs every shard;
 * a later one (after a task failed, timed out or was cancelled) runs only the shards that are not
 * complete, and each of those resumes from the runs its folder already holds. Scheduling, retries
 * and the data's way between nodes are Slurm's and the shared filesystem's; this only writes the
 * scripts and calls sbatch.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configOf, readExperimentFile, type ExperimentConfig } from './runner';
import {
  isMerged,
  logsDir,
  readSlurmRecord,
  shardCounts,
  shardDir,
  slurmDir,
  submittedJobs,
  writeSlurmRecord,
  type SlurmRecord,
} from './slurm-array';
import { hasEnded, queuedJobs, sbatch } from './slurm-commands';
import { arrayScript, mergeScript, shellWord, type SlurmJobs } from './slurm-scripts';

/** A submission this folder's state does not allow (bad input, not a Slurm failure). */
export class SubmitRefusedError extends Error {
  override name = 'SubmitRefusedError';
}

export type SubmitOptions = Omit<SlurmJobs, 'work' | 'indices'> & {
  /** The commit this checkout's code is at (provenance.ts): every shard must have run at it. */
  commit: string;
};

export type SubmitResult =
  | { kind: 'complete'; out: string }
  | { kind: 'dry-run'; text: string }
  | { kind: 'submitted'; array: string | null; indices: number[]; merge: string; work: string };

const sameExperiment = (a: ExperimentConfig, b: ExperimentConfig): boolean =>
  JSON.stringify(configOf(a)) === JSON.stringify(configOf(b));

/** Refuses a folder that holds another experiment, or runs of another commit (they would not merge). */
function checkFolder(dir: string, o: SubmitOptions): void {
  if (!existsSync(path.join(dir, 'experiment.json'))) return;
  const file = readExperimentFile(dir);
  if (!sameExperiment(file, o.config))
    throw new SubmitRefusedError(
      `${dir} holds another experiment (${JSON.stringify(configOf(file))}); use a new --out or the same settings`,
    );
  if (file.commit !== o.commit)
    throw new SubmitRefusedError(
      `${dir} holds runs of commit ${file.commit}, this checkout is ${o.commit}: they cannot be resumed or merged with this code; use a new --out`,
    );
}

function checkRecord(record: SlurmRecord | null, work: string, o: SubmitOptions): void {
  if (!record) return;
  if (!sameExperiment(record.experiment, o.config))
    throw new SubmitRefusedError(`${work} was submitted for another experiment; use a new --out`);
  if (record.shards !== o.shards || record.cpusPerTask !== o.cpusPerTask)
    throw new SubmitRefusedError(
      `${work} was submitted as ${record.shards} shards of ${record.cpusPerTask} CPUs; resubmit with --shards ${record.shards} --cpus-per-task ${record.cpusPerTask}`,
    );
}

/** Slurm's #SBATCH lines and paths take no quoting: refuse paths that would need it. */
function checkPaths(o: SubmitOptions): void {
  for (const p of [o.cwd, o.out])
    if (shellWord(p) !== p)
      throw new SubmitRefusedError(`${p}: a path in a job script must not hold spaces or quotes`);
}

export function submitExperiment(o: SubmitOptions & { dryRun?: boolean }): SubmitResult {
  checkPaths(o);
  const work = slurmDir(o.out);
  const record = readSlurmRecord(work);
  checkRecord(record, work, o);
  checkFolder(o.out, o);
  for (let i = 0; i < o.shards; i++) checkFolder(shardDir(work, i), o);
  if (isMerged(o.out, o.config)) return { kind: 'complete', out: o.out };

  const indices = shardCounts(work, o.config, o.shards)
    .map((c, i) => (c.done < c.total ? i : -1))
    .filter((i) => i >= 0);
  const jobs: SlurmJobs = { ...o, work, indices };
  const arrayFile = path.join(work, 'array.sh');
  const mergeFile = path.join(work, 'merge.sh');
  const mergeArgs = (dependency: string | null): string[] => [
    ...(dependency === null ? [] : [`--dependency=afterok:${dependency}`, '--kill-on-invalid-dep=yes']),
    mergeFile,
  ];
  if (o.dryRun) {
    const text = [
      ...(indices.length > 0 ? [`# sbatch --parsable ${arrayFile}`, arrayScript(jobs)] : []),
      `# sbatch --parsable ${mergeArgs(indices.length > 0 ? '<array job id>' : null).join(' ')}`,
      mergeScript(jobs),
    ].join('\n');
    return { kind: 'dry-run', text };
  }

  if (record) {
    const running = queuedJobs(submittedJobs(record)).filter((j) => !hasEnded(j));
    if (running.length > 0)
      throw new SubmitRefusedError(
        `jobs of the last submission are still queued or running (${running.map((j) => `${j.id} ${j.state}`).join(', ')}): wait for them, or scancel them, then resubmit`,
      );
  }
  // Slurm opens the logs but does not make their folder.
  mkdirSync(logsDir(work), { recursive: true });
  if (indices.length > 0) writeFileSync(arrayFile, arrayScript(jobs));
  writeFileSync(mergeFile, mergeScript(jobs));
  const base: SlurmRecord = record ?? {
    experiment: configOf(o.config),
    shards: o.shards,
    cpusPerTask: o.cpusPerTask,
    submissions: [],
  };
  const array = indices.length > 0 ? sbatch([arrayFile]) : null;
  const submission = { array, shards: indices, merge: null as string | null };
  // Recorded before the merge's sbatch: a failing one must not hide a running array.
  writeSlurmRecord(work, { ...base, submissions: [...base.submissions, submission] });
  submission.merge = sbatch(mergeArgs(array));
  writeSlurmRecord(work, { ...base, submissions: [...base.submissions, submission] });
  return { kind: 'submitted', array, indices, merge: submission.merge, work };
}
