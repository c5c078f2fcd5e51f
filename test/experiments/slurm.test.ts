/**
 * An experiment on a real Slurm cluster (one node on this machine, test/helpers/slurm-cluster.ts):
 * `parapush experiment slurm` submits it as a 4-task job array and a merge job, and the merged
 * folder holds exactly the runs a local run of the same experiment makes; an array task cancelled
 * mid-run is resumed by resubmitting (its finished run kept, not rerun), with the same result.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunRecords, runFile, type RunRecord } from '../../src-main/experiments/run-record';
import { configOf, readExperimentFile } from '../../src-main/experiments/runner';
import { logsDir, shardDir, slurmDir } from '../../src-main/experiments/slurm-array';
import type { ExperimentStatus } from '../../src-main/experiments/slurm-status';
import { cli, cliWithin } from '../helpers/cli';
import { repoRoot } from '../helpers/scenes';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from '../helpers/slurm-cluster';

const unavailable = slurmUnavailable();
if (unavailable) process.stderr.write(`slurm.test.ts skipped: ${unavailable}\n`);

const SHARDS = 4;
const SCENES = 8;

/**
 * The cheapest model on a small task whose runs still take about a second each (6 actions of a
 * strong optimizer on the coarse model), so that a task can be cancelled between two runs.
 */
function writeTask(dir: string): string {
  const file = path.join(dir, 'cluster-task.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'cluster-task',
      scene: path.join(repoRoot, 'resources/scenes/cvs-multi-object.json'),
      costs: [{ term: 'goal-distance', weight: 100 }],
      planner: {
        horizon: 1,
        controlDuration: 0.5,
        initialSpeed: 0.05,
        optimizer: { rollouts: 80, maxIterations: 20 },
        maxExecutedActions: 6,
      },
      execution: { noise: { kind: 'constant', variance: 0 } },
      sampling: { kind: 'jitter', halfRange: 0.005 },
    }),
  );
  return file;
}

/** A run without what the wall clock decides (run and planning times, the machine's load). */
function withoutClock(r: RunRecord): unknown {
  const { wallTime: _w, loadAtStart: _l, summary, ...rest } = r;
  const { taskTime: _t, planningTimes, ...outcome } = summary;
  return { ...rest, planned: planningTimes.length, summary: outcome };
}

const byRun = (dir: string): Map<string, RunRecord> =>
  new Map(readRunRecords(dir).map((r) => [`${r.model}#${r.scene}`, r]));

/** The jobs squeue listed in a status. */
function jobsOf(s: ExperimentStatus): { id: string; state: string }[] {
  const queue = s.slurm!.queue;
  if ('unavailable' in queue) throw new Error(queue.unavailable);
  return queue.jobs;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(unavailable !== null)(
  `an experiment on a one-node Slurm cluster${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let cluster: SlurmCluster | undefined;
    let tmp: string;
    let task: string;
    const local = (): string => path.join(tmp, 'local');
    const common = (): string[] => [
      '--task',
      task,
      '--models',
      'coarse',
      '--scenes',
      `${SCENES}`,
      '--seed',
      '3',
    ];
    const submit = (out: string) =>
      cli('experiment', 'slurm', ...common(), '--out', out, '--shards', `${SHARDS}`, '--cpus-per-task', '1');

    /** Waits until Slurm has none of the jobs queued or running. */
    async function settled(ids: string[], timeout = 100): Promise<void> {
      const end = Date.now() + timeout * 1000;
      while (cluster!.run('squeue', '--noheader', `--jobs=${ids.join(',')}`, '--format=%i').trim() !== '') {
        if (Date.now() > end) throw new Error(`jobs ${ids.join(', ')} still queued after ${timeout} s`);
        await sleep(500);
      }
    }

    const submitted = (stdout: string): { array: string; shards: string; merge: string } => {
      const m = /submitted array job (\d+) \(shards ([\d,-]+)\) and merge job (\d+) after it/.exec(stdout);
      expect(m, stdout).not.toBeNull();
      return { array: m![1]!, shards: m![2]!, merge: m![3]! };
    };

    /** The merged folder is the local run's: same identity and commit, the same runs bit for bit. */
    async function expectLikeLocal(out: string, verifyScene: number): Promise<void> {
      const mine = readExperimentFile(out);
      const theirs = readExperimentFile(local());
      expect(configOf(mine)).toEqual(configOf(theirs));
      expect(mine.commit).toBe(theirs.commit);
      expect(mine.command).toBe(
        theirs.command.replace(path.relative(repoRoot, local()), path.relative(repoRoot, out)),
      );
      const merged = byRun(out);
      const reference = byRun(local());
      expect([...merged.keys()].sort()).toEqual([...reference.keys()].sort());
      expect(merged.size).toBe(SCENES);
      for (const [key, r] of reference) expect(withoutClock(merged.get(key)!), key).toEqual(withoutClock(r));
      const verify = await cli('experiment', 'verify', out, '--task-file', task, '--scene', `${verifyScene}`);
      expect(verify.stdout + verify.stderr).toMatch(/: 1 runs repeat bit for bit/);
      expect(verify.code).toBe(0);
    }

    beforeAll(async () => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-slurm-exp-'));
      task = writeTask(tmp);
      cluster = await startSlurmCluster();
      // The CLI (and through sbatch, every job) reaches this cluster by Slurm's own variable.
      process.env.SLURM_CONF = cluster.env.SLURM_CONF;
      const r = await cliWithin(120, 'experiment', ...common(), '--workers', '1', '--out', local());
      expect(r.code, r.stderr).toBe(0);
    }, 180_000);

    afterAll(async () => {
      delete process.env.SLURM_CONF;
      await cluster?.stop();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }, 60_000);

    it('a 4-task array and its merge job write the folder a local run writes, bit for bit', async () => {
      const out = path.join(tmp, 'array');
      const r = await submit(out);
      expect(r.code, r.stderr).toBe(0);
      const jobs = submitted(r.stdout);
      expect(jobs.shards).toBe('0-3');
      await settled([jobs.array, jobs.merge]);
      await expectLikeLocal(out, 0);

      const status = await cli('experiment', 'status', out, '--json');
      expect(status.code, status.stderr).toBe(0);
      const s = JSON.parse(status.stdout) as ExperimentStatus;
      expect(s.merged).toEqual({ done: SCENES, total: SCENES, report: true });
      expect(s.slurm!.shardRuns).toEqual(Array(SHARDS).fill({ done: 2, total: 2 }));
      // Slurm's own word: every array task and the merge job completed.
      const states = new Map(jobsOf(s).map((j) => [j.id, j.state]));
      for (let i = 0; i < SHARDS; i++) expect(states.get(`${jobs.array}_${i}`)).toBe('COMPLETED');
      expect(states.get(jobs.merge)).toBe('COMPLETED');

      const again = await submit(out);
      expect(again.stdout).toMatch(/holds every run and its report: nothing to submit/);
    }, 150_000);

    it('an array task cancelled mid-run is resumed by resubmitting: its finished run is kept, the result is the same', async () => {
      const out = path.join(tmp, 'cancelled');
      const work = slurmDir(out);
      const first = submitted((await submit(out)).stdout);
      // Shard 1 owns scenes 1 and 5: cancel it once scene 1 is stored, while scene 5 runs.
      const kept = runFile(shardDir(work, 1), 'coarse', 1);
      const end = Date.now() + 90_000;
      while (!existsSync(kept)) {
        if (Date.now() > end) throw new Error(`${kept} never appeared`);
        await sleep(50);
      }
      cluster!.run('scancel', `${first.array}_1`);
      const keptText = readFileSync(kept, 'utf8');
      await settled([first.array, first.merge]);

      const stopped = JSON.parse(
        (await cli('experiment', 'status', out, '--json')).stdout,
      ) as ExperimentStatus;
      expect(stopped.slurm!.shardRuns[1]).toEqual({ done: 1, total: 2 });
      expect(stopped.merged.done).toBe(0);
      const states = new Map(jobsOf(stopped).map((j) => [j.id, j.state]));
      expect(states.get(`${first.array}_1`)).toBe('CANCELLED');
      // The merge waited for every task with afterok, so Slurm dropped it.
      expect(states.get(first.merge)).toBe('CANCELLED');

      const r = await submit(out);
      expect(r.code, r.stderr).toBe(0);
      const second = submitted(r.stdout);
      expect(second.shards).toBe('1');
      await settled([second.array, second.merge]);
      // Verified on the scene the resumed shard ran after the cancel.
      await expectLikeLocal(out, 5);
      // Resumed, not rerun: the run finished before the cancel is the same file, wall time and all.
      expect(readFileSync(kept, 'utf8')).toBe(keptText);
      expect(readFileSync(path.join(logsDir(work), 'shard-1.log'), 'utf8')).toMatch(
        /coarse scene 1: kept from an earlier run/,
      );
    }, 200_000);
  },
);
