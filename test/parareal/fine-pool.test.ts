import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { FinePool } from '../../src-main/parareal/fine-pool';
import type { WorkerTransport } from '../../src-main/parareal/worker-transport';
import { initialState } from '#contract/state';
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
    const pool = new FinePool({ workers: 1, spawn: stuckWorker, jobTimeoutMs: 100 });
    const key = pool.registerScene(scene);
    await expect(
      pool.run({ sceneKey: key, x: initialState(scene), controls: [[0.01, 0]], dt: 1 }),
    ).rejects.toThrow(/timed out after 100 ms.*replaced/);
    await new Promise((r) => setTimeout(r, 10));
    expect(pool.replacements).toBe(1);
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
