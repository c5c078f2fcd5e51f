/**
 * An experiment run as a Slurm job array, on disk. Beside the experiment's folder OUT (which ends
 * up exactly as a local run writes it) lies OUT.slurm: one experiment folder per shard (each array
 * task's --out), the job scripts of the latest submission, the tasks' logs and slurm.json, the
 * record of every submission's job ids. Progress is read from these files alone: a run file
 * exists only once its run is complete (run-record.ts).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readStoredJson } from '../common/stored-json';
import { hasRunRecord } from './run-record';
import { experimentConfigSchema, shardScenes, type ExperimentConfig } from './runner';

/** OUT.slurm, next to the experiment's folder (given as the user wrote it, trailing slash or not). */
export function slurmDir(out: string): string {
  return `${path.normalize(out).replace(/[\\/]+$/, '')}.slurm`;
}

/** Shard i's folder is this prefix followed by i (the array script appends $SLURM_ARRAY_TASK_ID). */
export const shardPrefix = (work: string): string => path.join(work, 'shard-');

export const shardDir = (work: string, index: number): string => `${shardPrefix(work)}${index}`;

export const logsDir = (work: string): string => path.join(work, 'logs');

const jobIdSchema = z.string().regex(/^\d+$/);

export const slurmRecordSchema = z
  .object({
    experiment: experimentConfigSchema,
    /** Array tasks of the experiment: task i runs shard i/shards into OUT.slurm/shard-i. */
    shards: z.number().int().min(1),
    /** CPUs of each array task, and so its fine-model workers (`auto` models resolve by it). */
    cpusPerTask: z.number().int().min(1),
    /**
     * Every submission in order: the array's job id (none when every shard was complete), the
     * shards it ran and the merge job's id (none while, or if, its sbatch failed).
     */
    submissions: z.array(
      z
        .object({
          array: jobIdSchema.nullable(),
          shards: z.array(z.number().int().min(0)),
          merge: jobIdSchema.nullable(),
        })
        .strict(),
    ),
  })
  .strict();
export type SlurmRecord = z.infer<typeof slurmRecordSchema>;

const recordFile = (work: string): string => path.join(work, 'slurm.json');

export function readSlurmRecord(work: string): SlurmRecord | null {
  const file = recordFile(work);
  if (!existsSync(file)) return null;
  return readStoredJson(file, slurmRecordSchema, { what: 'Slurm submission record' });
}

export function writeSlurmRecord(work: string, record: SlurmRecord): void {
  mkdirSync(work, { recursive: true });
  writeFileSync(recordFile(work), `${JSON.stringify(slurmRecordSchema.parse(record), null, 2)}\n`);
}

/** Every job id the submissions name, oldest first. */
export function submittedJobs(record: SlurmRecord): string[] {
  return record.submissions.flatMap((s) => [s.array, s.merge].filter((id) => id !== null));
}

export interface RunCount {
  done: number;
  total: number;
}

/** How many of the runs a folder owns (scenes of `shard`, every model) are stored there. */
export function runCount(dir: string, config: ExperimentConfig, shard = { index: 0, count: 1 }): RunCount {
  const scenes = shardScenes(config.scenes, shard);
  let done = 0;
  for (const s of scenes) for (const m of config.models) if (hasRunRecord(dir, m, s)) done++;
  return { done, total: scenes.length * config.models.length };
}

/** Each shard folder's stored runs, shard by shard. */
export function shardCounts(work: string, config: ExperimentConfig, shards: number): RunCount[] {
  return Array.from({ length: shards }, (_, index) =>
    runCount(shardDir(work, index), config, { index, count: shards }),
  );
}

/** Whether the experiment's folder holds every run and the report a merge writes. */
export function isMerged(out: string, config: ExperimentConfig): boolean {
  const { done, total } = runCount(out, config);
  return done === total && existsSync(path.join(out, 'summary.json'));
}
