/**
 * Slurm's own client commands, as an experiment submitted to a cluster uses them: `sbatch` to
 * submit, `squeue` for the jobs the controller knows, `sacct` for the accounting record. They read
 * the cluster from Slurm's environment (SLURM_CONF and the like), never from this program.
 */
import { spawnSync } from 'node:child_process';

export class SlurmError extends Error {
  override name = 'SlurmError';
}

/** States after which a job holds no resources and changes no file again. */
const endedStates = new Set([
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'TIMEOUT',
]);

export interface QueuedJob {
  /** The job or array task, as Slurm prints it: 123, 123_4, 123_[5-7]. */
  id: string;
  state: string;
  /** Time used so far, as squeue prints it. */
  elapsed: string;
  /** Why it waits or how it ended (squeue's %r). */
  reason: string;
}

export const hasEnded = (job: Pick<QueuedJob, 'state'>): boolean => endedStates.has(job.state);

function slurm(command: string, args: readonly string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new SlurmError(
      missing
        ? `${command} not found: run this on a machine where Slurm's client commands are installed (a cluster's login node)`
        : `${command}: ${r.error.message}`,
    );
  }
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr.trim() };
}

/** Submits a batch script; returns its job id (sbatch --parsable prints "id" or "id;cluster"). */
export function sbatch(args: readonly string[]): string {
  const r = slurm('sbatch', ['--parsable', ...args]);
  const id = /^(\d+)(;\S+)?\s*$/.exec(r.stdout)?.[1];
  if (r.status !== 0 || !id)
    throw new SlurmError(
      `sbatch ${args.join(' ')} failed: ${r.stderr || r.stdout.trim() || `exit ${r.status}`}`,
    );
  return id;
}

/**
 * The jobs (array tasks one by one) that the controller still knows among `ids`: queued, running,
 * or ended within its MinJobAge. Jobs it has forgotten are simply absent.
 */
export function queuedJobs(ids: readonly string[]): QueuedJob[] {
  if (ids.length === 0) return [];
  const r = slurm('squeue', [
    '--noheader',
    '--array',
    '--states=all',
    `--jobs=${ids.join(',')}`,
    '--format=%i|%T|%M|%r',
  ]);
  if (r.status !== 0) {
    // squeue fails when it knows none of the ids: they all ended long ago.
    if (/Invalid job id/i.test(r.stderr)) return [];
    throw new SlurmError(`squeue: ${r.stderr || `exit ${r.status}`}`);
  }
  return r.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', state = '', elapsed = '', reason = ''] = line.trim().split('|');
      return { id, state, elapsed, reason };
    });
}

export interface AccountedJob {
  id: string;
  state: string;
  elapsed: string;
  exitCode: string;
}

/**
 * sacct's record of the jobs (array tasks one by one), or why there is none: clusters without
 * accounting storage (slurmdbd) answer with a message, not an error of ours.
 */
export function accountedJobs(ids: readonly string[]): { jobs: AccountedJob[] } | { unavailable: string } {
  if (ids.length === 0) return { jobs: [] };
  let r;
  try {
    r = slurm('sacct', [
      '--noheader',
      '--parsable2',
      '--allocations',
      `--jobs=${ids.join(',')}`,
      '--format=JobID,State,Elapsed,ExitCode',
    ]);
  } catch (e) {
    if (e instanceof SlurmError) return { unavailable: e.message };
    throw e;
  }
  if (r.status !== 0) return { unavailable: `sacct: ${r.stderr || `exit ${r.status}`}` };
  const jobs = r.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', state = '', elapsed = '', exitCode = ''] = line.split('|');
      return { id, state, elapsed, exitCode };
    });
  return { jobs };
}
