/**
 * Fault injection into `learn generate`'s worker pool: a worker stalled (SIGSTOP) or killed in the
 * middle of a block is replaced and its jobs run again, and the data set is bit for bit the one an
 * undisturbed generation makes; a job the worker fails still fails the generation at once.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assembleDataset, claimDirectory, makeBlocks, missingBlocks } from '../../src-main/learned/blocks';
import { DATA_FILE } from '../../src-main/learned/dataset';
import { BlockGenerator, generateTransitions, generationSettings } from '../../src-main/learned/generate';
import { FinePool, type WorkerReplaced } from '../../src-main/parareal/fine-pool';
import type { WorkerTransport } from '../../src-main/parareal/worker-transport';
import { spawnWithSendHook } from '../helpers/hooked-worker';
import type { Scene } from '#contract/scene';
import type { FineJob } from '#contract/worker-protocol';
import { referenceScene } from '../helpers/scenes';

// Euler at 2 ms over 0.1 s pushes: each job costs milliseconds.
const scene: Scene = {
  ...referenceScene('cvs-multi-object'),
  fine: { timestep: 0.002, integrator: 'Euler' },
};
const COUNT = 12;
const settings = generationSettings(scene, { seed: 5, dt: 0.1, sliderMix: [1, 1, 1, 1], blockSize: 6 });
// Long enough that a healthy job on a loaded machine does not run over (a job of a replacement
// worker includes compiling its scenes); a stalled worker costs the test this long once.
const JOB_TIMEOUT = 8;

/** One batch of jobs as sent to a worker, and the worker it went to. */
interface Batch {
  n: number;
  transport: WorkerTransport;
  jobs: FineJob[];
}

/**
 * Real fine workers, each batch of jobs passed through `fault` (counted over all workers from 1):
 * it may change the batch before it is sent, or act on the worker after.
 */
function faultyPool(fault: { before?: (b: Batch) => void; after?: (b: Batch) => void }) {
  const replaced: WorkerReplaced[] = [];
  const sent: FineJob[][] = [];
  let n = 0;
  const pool = new FinePool({
    workers: 2,
    jobTimeout: JOB_TIMEOUT,
    onWorkerReplaced: (e) => replaced.push(e),
    spawn: () =>
      spawnWithSendHook((m, forward, transport) => {
        if (m.type !== 'jobs') return forward(m);
        const msg = m as { type: string; jobs: FineJob[] };
        const batch = { n: ++n, transport, jobs: msg.jobs };
        fault.before?.(batch);
        sent.push(batch.jobs);
        forward({ ...msg, jobs: batch.jobs });
        fault.after?.(batch);
      }),
  });
  return { pool, replaced, sent };
}

const tmpDir = (): string => mkdtempSync(path.join(os.tmpdir(), 'parapush-gen-faults-'));

/** `learn generate` into a new directory on `pool`; the data set's bytes. */
async function generate(pool: FinePool, dir = tmpDir()): Promise<Buffer> {
  claimDirectory(dir, settings, COUNT, 'npx parapush learn generate --count 12 --block 6 --seed 5');
  const generator = new BlockGenerator(scene, pool, settings);
  // Faults are injected into jobs, not into the workers' start-up.
  await pool.warm();
  await makeBlocks(dir, () => generator);
  expect(assembleDataset(dir)).not.toBeNull();
  return readFileSync(path.join(dir, DATA_FILE));
}

describe('learn generate under worker faults', () => {
  let undisturbed: Buffer;
  beforeAll(async () => {
    const pool = new FinePool({ workers: 1 });
    try {
      const { records } = await generateTransitions(scene, pool, settings, COUNT);
      undisturbed = Buffer.from(records.buffer, records.byteOffset, records.byteLength);
    } finally {
      await pool.close();
    }
  }, 180_000);

  // A stalled worker is replaced when its job runs over the timeout, a killed one when it exits.
  // The stop comes before the batch is sent: stopped after, a worker on a loaded machine could
  // answer the batch first and never be given another job to time out on. A kill right after the
  // send always catches the batch in flight: its answer is read only once this callback returns.
  it.each([
    {
      fault: 'stalled',
      when: 'before' as const,
      act: (t: WorkerTransport): void => void process.kill(t.pid!, 'SIGSTOP'),
      reason: (pid: number) => new RegExp(`timed out after ${JOB_TIMEOUT} s on worker ${pid}$`),
    },
    {
      fault: 'killed',
      when: 'after' as const,
      act: (t: WorkerTransport): void => t.kill(),
      reason: (pid: number) => new RegExp(`^worker ${pid} exited with code null$`),
    },
  ])(
    'a worker $fault in the middle of a block is replaced, its jobs run again, the bytes unchanged',
    async ({ when, act, reason }) => {
      let hit: number | undefined;
      const { pool, replaced } = faultyPool({
        [when]: (b: Batch) => {
          if (b.n !== 3) return;
          hit = b.transport.pid!;
          act(b.transport);
        },
      });
      try {
        expect((await generate(pool)).equals(undisturbed)).toBe(true);
        expect(hit).toBeDefined();
        // A timed-out worker's jobs go back to the queue at once, and its replacement is reported
        // when the killed process's exit arrives: on a loaded machine that can be after the other
        // worker has finished the data set.
        const report = await vi.waitFor(
          () => {
            const r = replaced.find((e) => e.pid === hit);
            if (!r) throw new Error(`no replacement reported yet for worker ${hit}`);
            return r;
          },
          { timeout: 10_000, interval: 50 },
        );
        expect(report?.reason).toMatch(reason(hit!));
        expect(report?.requeued).toBeGreaterThan(0);
      } finally {
        await pool.close();
      }
    },
    180_000,
  );

  it('a job the worker fails fails the generation at once, naming its block and transition', async () => {
    let bad: number | undefined;
    const { pool, replaced, sent } = faultyPool({
      before: (b) => {
        if (b.n !== 2) return;
        // A control held for a time that is no whole number of fine steps: the fine model refuses it.
        bad = b.jobs[0]!.id;
        b.jobs = [{ ...b.jobs[0]!, dt: 0.0013 }, ...b.jobs.slice(1)];
      },
    });
    const dir = tmpDir();
    try {
      const failure = await generate(pool, dir).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(bad).toBeDefined();
      expect(failure).toMatch(
        new RegExp(
          `^block 0, transition \\d: fine job ${bad} failed on worker \\d+: .*0\\.0013 s is not a whole number`,
        ),
      );
      // Not run again, and no worker was replaced for it.
      expect(sent.flat().filter((j) => j.id === bad)).toHaveLength(1);
      expect(replaced).toEqual([]);
      expect(missingBlocks(dir).map((b) => b.index)).toEqual([0, 1]);
    } finally {
      await pool.close();
    }
  }, 180_000);
});
