/**
 * `parapush experiment slurm`: the experiment as a Slurm job array (one shard per array task) and
 * a merge job after it; run again, it resubmits only the shards that did not finish, which resume.
 * `parapush experiment status DIR`: the runs each shard and the merged folder hold, and what Slurm
 * says of the jobs.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { appRoot } from '../../common/paths';
import type { ExperimentConfig } from '../../experiments/runner';
import { currentCommit } from '../../experiments/provenance';
import { SlurmError } from '../../experiments/slurm-commands';
import { experimentStatus, statusText, StatusError } from '../../experiments/slurm-status';
import { submitExperiment, SubmitRefusedError } from '../../experiments/slurm-submit';
import { arrayList } from '../../experiments/slurm-scripts';
import { EXIT_FAILURE, UsageError } from '../errors';
import { wholeNumber } from '../whole-number';

/** The experiment the parent command's options describe, checked as a local run checks it. */
export interface ExperimentToSubmit {
  config: ExperimentConfig;
  /** --task as given: the array's tasks load it as the local run would. */
  task: string;
  out: string;
  sessions: boolean;
  /** The parent's --shard and --workers: the array sets both, so they must be left alone. */
  shard: string;
  workers: string | undefined;
}

/** Slurm's time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
const slurmTime = /^(\d+-\d+(:\d+){0,2}|\d+(:\d+){0,2})$/;

/** Slurm's own failures (sbatch refused, squeue unreachable) end the command with their words, exit 1. */
function slurmFailure(e: unknown): boolean {
  if (!(e instanceof SlurmError)) return false;
  process.stderr.write(`parapush: ${e.message}\n`);
  process.exitCode = EXIT_FAILURE;
  return true;
}

export function registerExperimentSlurmCommands(
  cmd: Command,
  experimentOf: (command: Command) => ExperimentToSubmit,
): void {
  cmd
    .command('slurm')
    .description(
      "submit the experiment to Slurm: a job array of --shards tasks (task i runs --shard i/N into <out>.slurm/shard-i) and a merge job into --out after it; run it again to resubmit the shards that did not finish, which resume; takes the experiment command's options",
    )
    .requiredOption('--shards <N>', 'array tasks, one shard of the scenes each (at most --scenes)')
    .option('--cpus-per-task <C>', "each task's CPUs, and so its fine-model workers", '2')
    .option('--partition <P>', "the partition to run in (default: the cluster's)")
    .option('--time <T>', "each task's time limit, in Slurm's format (e.g. 2:00:00 or 1-00:00:00)")
    .option('--dry-run', 'print the scripts and sbatch commands; write and submit nothing')
    .action(
      (
        sub: { shards: string; cpusPerTask: string; partition?: string; time?: string; dryRun?: boolean },
        command: Command,
      ) => {
        const e = experimentOf(command);
        if (e.shard !== '0/1') throw new UsageError('--shard: the array gives each task its shard');
        if (e.workers !== undefined)
          throw new UsageError('--workers: each task runs one worker per CPU; give --cpus-per-task');
        const shards = wholeNumber('--shards', sub.shards, 1);
        if (shards > e.config.scenes)
          throw new UsageError(
            `--shards: ${shards} shards of ${e.config.scenes} scenes would leave some empty`,
          );
        if (sub.partition !== undefined && !/^[\w.-]+(,[\w.-]+)*$/.test(sub.partition))
          throw new UsageError(
            `--partition: expected a partition name (or a comma-separated list), got "${sub.partition}"`,
          );
        if (sub.time !== undefined && !slurmTime.test(sub.time))
          throw new UsageError(
            `--time: expected Slurm's format (minutes, HH:MM:SS or D-HH:MM:SS), got "${sub.time}"`,
          );
        try {
          const result = submitExperiment({
            config: e.config,
            task: e.task,
            out: e.out,
            shards,
            cpusPerTask: wholeNumber('--cpus-per-task', sub.cpusPerTask, 1),
            sessions: e.sessions,
            ...(sub.partition ? { partition: sub.partition } : {}),
            ...(sub.time ? { time: sub.time } : {}),
            cwd: process.cwd(),
            node: process.execPath,
            cli: path.join(appRoot, 'bin/parapush.mjs'),
            commit: currentCommit(),
            dryRun: sub.dryRun ?? false,
          });
          if (result.kind === 'dry-run') process.stdout.write(result.text);
          else if (result.kind === 'complete')
            process.stdout.write(`${result.out} holds every run and its report: nothing to submit\n`);
          else
            process.stdout.write(
              `${
                result.array
                  ? `submitted array job ${result.array} (shards ${arrayList(result.indices)}) and merge job ${result.merge} after it`
                  : `every shard is complete: submitted merge job ${result.merge}`
              }; progress: parapush experiment status ${e.out}\n`,
            );
        } catch (err) {
          if (err instanceof SubmitRefusedError) throw new UsageError(err.message);
          if (!slurmFailure(err)) throw err;
        }
      },
    );

  cmd
    .command('status')
    .description(
      "an experiment's progress: the runs each shard folder and the experiment's folder hold, and, when it was submitted to Slurm, squeue's and sacct's word on its jobs",
    )
    .argument('<dir>', "the experiment's folder (its --out)")
    .action((dir: string, _opts: unknown, command: Command) => {
      // --json is the parent command's option too (see merge).
      const { json } = command.optsWithGlobals<{ json?: boolean }>();
      try {
        const status = experimentStatus(dir);
        process.stdout.write(json ? `${JSON.stringify(status)}\n` : statusText(dir, status));
      } catch (err) {
        if (err instanceof StatusError) throw new UsageError(err.message);
        if (!slurmFailure(err)) throw err;
      }
    });
}
