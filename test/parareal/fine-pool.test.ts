import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { FinePool, type WorkerReplaced } from '../../src-main/parareal/fine-pool';
import type { WorkerTransport } from '../../src-main/parareal/worker-transport';
import { initialState } from '#contract/state';
import type { FineJob } from '#contract/worker-protocol';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');

/** A worker that says it is ready and then never answers: a stuck fine job. */
function stuckWorker(): WorkerTransport {
  let onExit: (code: number | null) => void = () => undefined;
  let onMessage: (m: unknown) => void = () => undefined;
  queueMicrotask(() => onMessage({ type: 'ready', pid: 1 }));
  return {
    pid: undefined,
    send: () => undefined,
    onMessage: (h) => (onMessage = h),
    onExit: (h) => (onExit = h),
    kill: () => queueMicrotask(() => onExit(null)),
  };
}

/**
 * Fake workers from a script: worker k (in spawn order) is stuck when `stuck(k)`, otherwise it
 * answers each job with a result, or with an error for the job ids in `failing`. `sent` records
 * every batch and which worker got it.
 */
function scriptedWorkers(o: { stuck: (k: number) => boolean; failing?: Set<number> }) {
  const sent: { worker: number; ids: number[] }[] = [];
  let spawned = 0;
  const spawn = (): WorkerTransport => {
    const k = spawned++;
    let onExit: (code: number | null) => void = () => undefined;
    let onMessage: (m: unknown) => void = () => undefined;
    queueMicrotask(() => onMessage({ type: 'ready', pid: 1 }));
    return {
      pid: 100 + k,
      send: (m) => {
        const msg = m as { type: string; jobs?: FineJob[] };
        if (msg.type !== 'jobs') return;
        sent.push({ worker: k, ids: msg.jobs!.map((j) => j.id) });
        if (o.stuck(k)) return;
        for (const job of msg.jobs!)
          queueMicrotask(() =>
            onMessage(
              o.failing?.has(job.id)
                ? { type: 'error', id: job.id, message: 'a state with NaN' }
                : {
                    type: 'result',
                    result: {
                      id: job.id,
                      states: [job.x],
                      seconds: 0,
                      cpu: 0,
                      steps: 1,
                      solverIterations: 0,
                    },
                  },
            ),
          );
      },
      onMessage: (h) => (onMessage = h),
      onExit: (h) => (onExit = h),
      kill: () => queueMicrotask(() => onExit(null)),
    };
  };
  return { spawn, sent };
}

/** Collects the pool's replacement reports; `after(n)` resolves once n have come. */
function replacementLog() {
  const events: WorkerReplaced[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    events,
    onWorkerReplaced: (e: WorkerReplaced) => {
      events.push(e);
      for (const w of waiters) if (events.length >= w.n) w.resolve();
    },
    after: (n: number) =>
      new Promise<void>((resolve) => (events.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('fine worker pool', () => {
  it('fails a stuck job with a clear timeout error and replaces the worker', async () => {
    const pool = new FinePool({ workers: 1, spawn: stuckWorker, jobTimeout: 0.1 });
    const key = pool.registerScene(scene);
    await expect(
      pool.run({ sceneKey: key, x: initialState(scene), controls: [[0.01, 0]], dt: 1 }),
    ).rejects.toThrow(/timed out after 0.1 s.*replaced/);
    await new Promise((r) => setTimeout(r, 10));
    expect(pool.replacements).toBe(1);
    await pool.close();
  });

  it('runs a job that may wait again after a timeout; a planner job of the same batch fails at once', async () => {
    // Worker 0 never answers; its replacement answers everything.
    const workers = scriptedWorkers({ stuck: (k) => k === 0 });
    const log = replacementLog();
    const pool = new FinePool({ workers: 1, spawn: workers.spawn, jobTimeout: 0.02, ...log });
    const key = pool.registerScene(scene);
    const x = initialState(scene);
    const job = (retryTimeouts: boolean) =>
      pool.run({ sceneKey: key, x, controls: [[0.01, 0]], dt: 1 }, undefined, { retryTimeouts });
    // Four jobs on one worker go out two by two: the stuck worker gets a batch of a waiting job
    // (first, so it is the one that runs over) and a planner's.
    const [waiting, planner, waiting2, planner2] = [job(true), job(false), job(true), job(false)];
    await expect(planner).rejects.toThrow(
      /fine job 1 timed out after 0.02 s on worker 100; the worker was replaced$/,
    );
    expect((await waiting).states).toEqual([x]);
    await Promise.all([waiting2, planner2]);
    await log.after(1);
    expect(workers.sent).toEqual([
      { worker: 0, ids: [1, 2] },
      { worker: 1, ids: [1] }, // the retried job first, before the jobs queued after it
      { worker: 1, ids: [3] },
      { worker: 1, ids: [4] },
    ]);
    expect(log.events).toEqual([
      { pid: 100, reason: 'fine job 1 timed out after 0.02 s on worker 100', requeued: 1 },
    ]);
    expect(pool.replacements).toBe(1);
    await pool.close();
  });

  it('gives up on a job that times out maxAttempts times, not counting the runs it held up', async () => {
    const workers = scriptedWorkers({ stuck: () => true });
    const log = replacementLog();
    const pool = new FinePool({ workers: 1, spawn: workers.spawn, jobTimeout: 0.01, maxAttempts: 3, ...log });
    const key = pool.registerScene(scene);
    const x = initialState(scene);
    const jobs = [1, 2, 3, 4].map(() =>
      pool
        .run({ sceneKey: key, x, controls: [[0.01, 0]], dt: 1 }, undefined, { retryTimeouts: true })
        .catch((e: Error) => e.message),
    );
    expect(await jobs[0]).toBe(
      'fine job 1 timed out after 0.01 s on worker 102; the worker was replaced; gave up after 3 attempts',
    );
    // Job 2 sat behind job 1 in its batches, never started, and kept its attempts for its own runs.
    expect(await jobs[1]).toBe(
      'fine job 2 timed out after 0.01 s on worker 105; the worker was replaced; gave up after 3 attempts',
    );
    expect(workers.sent.slice(0, 6)).toEqual([
      { worker: 0, ids: [1, 2] },
      { worker: 1, ids: [1, 2] },
      { worker: 2, ids: [1, 2] },
      { worker: 3, ids: [2] },
      { worker: 4, ids: [2] },
      { worker: 5, ids: [2] },
    ]);
    await log.after(6);
    expect(log.events.slice(0, 6).map((e) => e.requeued)).toEqual([2, 2, 1, 1, 1, 0]);
    await pool.close();
    expect(await jobs[2]).toBe('fine pool closed');
  });

  it('fails a job the worker fails at once, even one that may wait', async () => {
    const workers = scriptedWorkers({ stuck: () => false, failing: new Set([1]) });
    const log = replacementLog();
    const pool = new FinePool({ workers: 1, spawn: workers.spawn, jobTimeout: 60, ...log });
    const key = pool.registerScene(scene);
    await expect(
      pool.run({ sceneKey: key, x: initialState(scene), controls: [[0.01, 0]], dt: 1 }, undefined, {
        retryTimeouts: true,
      }),
    ).rejects.toThrow(/^fine job 1 failed on worker 100: a state with NaN$/);
    expect(workers.sent).toEqual([{ worker: 0, ids: [1] }]);
    expect(pool.replacements).toBe(0);
    expect(log.events).toEqual([]);
    await pool.close();
  });

  it('is warm once every worker has compiled every registered scene, not before', async () => {
    const pool = new FinePool({ workers: 2 });
    pool.registerScene(scene);
    await pool.warm();
    // A scene registered later makes the pool cold until the workers have compiled it too.
    pool.registerScene({ ...scene, name: 'another scene' });
    let warm = false;
    const second = pool.warm().then(() => (warm = true));
    expect(warm).toBe(false);
    await second;
    await pool.close();

    // Workers that never finish compiling keep it cold; closing the pool ends the wait.
    const stuck = new FinePool({ workers: 1, spawn: stuckWorker });
    stuck.registerScene(scene);
    let resolved = false;
    const waiting = stuck.warm().then(() => (resolved = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(resolved).toBe(false);
    await stuck.close();
    await waiting;
  });

  it('leaves no processes behind after close()', async () => {
    const pool = new FinePool({ workers: 2 });
    const key = pool.registerScene(scene);
    await pool.run({ sceneKey: key, x: initialState(scene), controls: [[0.01, 0]], dt: 0.1 });
    const pids = pool.pids();
    expect(pids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    // Workers are batch work: below normal priority, so the supervising process comes first (or
    // lower still, as this process, when it was started lower).
    const below = Math.max(os.getPriority(), os.constants.priority.PRIORITY_BELOW_NORMAL);
    for (const pid of pids) expect(os.getPriority(pid)).toBe(below);
    await pool.close();
    expect(pids.some(isAlive)).toBe(false);
    await expect(
      pool.run({ sceneKey: key, x: initialState(scene), controls: [[0.01, 0]], dt: 0.1 }),
    ).rejects.toThrow(/closed/);
  });

  it('sends a registered scene to every worker before any job, and to workers that start later', async () => {
    const sent: { worker: number; type: string }[] = [];
    let spawned = 0;
    const recordingWorker = (): WorkerTransport => {
      const id = spawned++;
      let onMessage: (m: unknown) => void = () => undefined;
      let onExit: (code: number | null) => void = () => undefined;
      // The second worker becomes ready only after the scene was registered.
      setTimeout(() => onMessage({ type: 'ready', pid: 1 }), id === 0 ? 0 : 20);
      return {
        pid: undefined,
        send: (m) => sent.push({ worker: id, type: (m as { type: string }).type }),
        onMessage: (h) => (onMessage = h),
        onExit: (h) => (onExit = h),
        kill: () => queueMicrotask(() => onExit(null)),
      };
    };
    const pool = new FinePool({ workers: 2, spawn: recordingWorker });
    await new Promise((r) => setTimeout(r, 5));
    pool.registerScene(scene);
    expect(sent).toEqual([{ worker: 0, type: 'scene' }]);
    await new Promise((r) => setTimeout(r, 40));
    expect(sent).toEqual([
      { worker: 0, type: 'scene' },
      { worker: 1, type: 'scene' },
    ]);
    await pool.close();
  });

  it('keeps only the most recently used scenes compiled, and never forgets one with jobs', async () => {
    const sent: { type: string; sceneKey?: string }[] = [];
    let answer: (m: unknown) => void = () => undefined;
    const worker = (): WorkerTransport => {
      let onExit: (code: number | null) => void = () => undefined;
      queueMicrotask(() => answer({ type: 'ready', pid: 1 }));
      return {
        pid: undefined,
        send: (m) => sent.push(m as { type: string; sceneKey?: string }),
        onMessage: (h) => (answer = h),
        onExit: (h) => (onExit = h),
        kill: () => queueMicrotask(() => onExit(null)),
      };
    };
    const pool = new FinePool({ workers: 1, spawn: worker, compiledScenes: 1 });
    await new Promise((r) => setTimeout(r, 5));
    const a = pool.registerScene(scene);
    // A job on scene a, left running: a may not be forgotten while it runs.
    const job = pool.run({ sceneKey: a, x: initialState(scene), controls: [[0, 0]], dt: 1 });
    const b = pool.registerScene({ ...scene, name: 'edited' });
    expect(sent.filter((m) => m.type === 'forget')).toEqual([]);
    const id = (sent.find((m) => m.type === 'jobs') as unknown as { jobs: { id: number }[] }).jobs[0]!.id;
    answer({
      type: 'result',
      result: {
        id,
        states: [initialState(scene)],
        seconds: 0.001,
        cpu: 0.001,
        steps: 500,
        solverIterations: 0,
      },
    });
    await job;
    // Used again, b makes room: a, now idle, is forgotten on the worker...
    pool.registerScene({ ...scene, name: 'edited' });
    expect(sent.filter((m) => m.type === 'forget')).toEqual([{ type: 'forget', sceneKey: a }]);
    // ...and sent again, before its job, when a run needs it once more (b, idle, goes then).
    void pool.run({ sceneKey: a, x: initialState(scene), controls: [[0, 0]], dt: 1 }).catch(() => undefined);
    expect(sent.slice(-3).map((m) => `${m.type} ${m.sceneKey ?? ''}`)).toEqual([
      `forget ${b}`,
      `scene ${a}`,
      'jobs ',
    ]);
    await pool.close();
  });

  it('plans the same on a scene compiled again after it was forgotten', async () => {
    const pool = new FinePool({ workers: 1, compiledScenes: 1 });
    const x = initialState(scene);
    const job = (key: string) => pool.run({ sceneKey: key, x, controls: [[0.05, 0.01]], dt: 0.5 });
    const a = pool.registerScene(scene);
    const before = await job(a);
    const b = pool.registerScene({ ...scene, name: 'edited' });
    await job(b);
    const after = await job(a);
    expect(after.states).toEqual(before.states);
    await pool.close();
  });

  it("reports each job's work: the worker's CPU time, MuJoCo steps and solver iterations", async () => {
    const pool = new FinePool({ workers: 1 });
    const key = pool.registerScene(scene);
    const x = initialState(scene);
    const r = await pool.run({
      sceneKey: key,
      x,
      controls: [
        [0.05, 0],
        [0.05, 0],
      ],
      dt: 0.5,
    });
    expect(r.steps).toBe(2 * Math.round(0.5 / scene.fine.timestep));
    expect(r.solverIterations).toBeGreaterThan(0);
    expect(r.cpu).toBeGreaterThan(0);
    await pool.close();
  });

  it('rejects jobs for scenes it was never given', async () => {
    const pool = new FinePool({ workers: 1, spawn: stuckWorker });
    await expect(
      pool.run({ sceneKey: 'nope', x: new Float64Array(10), controls: [[0, 0]], dt: 1 }),
    ).rejects.toThrow(/unknown scene/);
    await pool.close();
  });
});
