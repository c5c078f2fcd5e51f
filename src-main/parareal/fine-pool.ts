/**
 * A pool of W fine-model workers. Jobs queue in submission order (the Parareal scheduler submits
 * in the order it wants them run) and go out in batches to idle workers.
 *
 * Failure handling: a worker that dies is replaced and its unfinished jobs are queued again at the
 * front (the fine model is deterministic, so the result is the same wherever it runs); a job that
 * kills workers repeatedly fails instead of looping. A job that runs past the timeout fails with a
 * clear error and its worker is replaced: a planner cannot wait for it to run again. Batch work
 * that can wait (data generation) asks for `retryTimeouts`: its job is then queued again like the
 * job of a dead worker. close() kills every worker and waits for them to exit.
 *
 * A pool may outlive many runs: workers keep the compiled models of the scenes used last, so the
 * next run on one of them plans at once, and forget older ones (compiled again if used again).
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { Scene } from '#contract/scene';
import { fromWorkerSchema, type FineJob, type FineResult, type ToWorker } from '#contract/worker-protocol';
import { toolModuleOf } from '#contract/end-effector/registry';
import { spawnNodeWorker, type SpawnWorker, type WorkerTransport } from './worker-transport';

export interface FinePoolOptions {
  workers?: number;
  spawn?: SpawnWorker;
  /** A single job running longer than this fails (s). */
  jobTimeout?: number;
  /** A job whose worker died this many times fails instead of being retried. */
  maxAttempts?: number;
  /**
   * Scenes whose compiled model each worker keeps (the most recently used): a pool that outlives
   * runs (the console's) meets a new scene with every edit, and each model holds MuJoCo memory.
   */
  compiledScenes?: number;
  /** Told whenever a worker is replaced (died, stuck or misbehaving), after its jobs were queued again or failed. */
  onWorkerReplaced?: (event: WorkerReplaced) => void;
}

export interface WorkerReplaced {
  pid: number | undefined;
  /** Why, naming the worker: the job that timed out, the exit code or the malformed message. */
  reason: string;
  /** Jobs it held that were queued again (the rest failed). */
  requeued: number;
}

export interface FineRunOptions {
  /**
   * A job that times out is run again on another worker (bounded by maxAttempts), as a job whose
   * worker died is: only for callers that can wait (data generation), never a real-time planner.
   */
  retryTimeouts?: boolean;
}

export type FineJobInput = Omit<FineJob, 'id'>;

export class FineJobError extends Error {
  override name = 'FineJobError';
}

interface Pending {
  job: FineJob;
  /** Times its worker was lost while it held the job. */
  attempts: number;
  retryTimeouts: boolean;
  resolve(r: FineResult): void;
  reject(e: Error): void;
  signal: AbortSignal | undefined;
}

interface Worker {
  transport: WorkerTransport;
  ready: boolean;
  scenes: Set<string>;
  /** Scenes whose model this worker has compiled. */
  compiled: Set<string>;
  inFlight: Map<number, Pending>;
  timer: NodeJS.Timeout | undefined;
  exited: Promise<void>;
  /** Set when the pool killed it: why, and how many of its jobs went back to the queue. */
  lost: { reason: string; requeued: number } | undefined;
}

/**
 * One worker per core. Workers run below normal priority (worker-transport.ts), so the process
 * that supervises a run, and a virtual lab beside it, still get a core the moment they need one;
 * keeping a core free for them (cores - 1) halved planning throughput on two cores for nothing.
 */
export function defaultWorkerCount(): number {
  return os.availableParallelism();
}

export class FinePool {
  readonly size: number;
  private readonly spawn: SpawnWorker;
  private readonly jobTimeout: number;
  private readonly maxAttempts: number;
  private readonly workers = new Set<Worker>();
  private readonly queue: Pending[] = [];
  private readonly scenes = new Map<string, Scene>();
  /** Keys of the scenes workers keep compiled, least recently used first. */
  private readonly retained: string[] = [];
  private readonly compiledScenes: number;
  private readonly onWorkerReplaced: ((event: WorkerReplaced) => void) | undefined;
  /** Queued jobs per caller's signal: one abort listener per signal, however many jobs it covers. */
  private readonly cancellable = new WeakMap<AbortSignal, Set<Pending>>();
  private warmWaiters: (() => void)[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers started to replace dead or stuck ones (for tests and diagnostics). */
  replacements = 0;

  constructor(options: FinePoolOptions = {}) {
    this.size = options.workers ?? defaultWorkerCount();
    if (!Number.isInteger(this.size) || this.size < 1)
      throw new Error(`worker count must be >= 1, got ${this.size}`);
    this.spawn = options.spawn ?? spawnNodeWorker;
    this.jobTimeout = options.jobTimeout ?? 60;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.compiledScenes = options.compiledScenes ?? 4;
    this.onWorkerReplaced = options.onWorkerReplaced;
    if (!Number.isInteger(this.compiledScenes) || this.compiledScenes < 1)
      throw new Error(`compiled scene count must be >= 1, got ${this.compiledScenes}`);
    for (let i = 0; i < this.size; i++) this.startWorker();
  }

  /**
   * Makes a scene known to the pool; jobs name it by the returned content key. Every ready worker
   * starts compiling it at once (and workers that start later do so when ready), so the first
   * plan of a run does not wait for MuJoCo compilation and WebAssembly warm-up.
   */
  registerScene(scene: Scene): string {
    const key = createHash('sha256').update(JSON.stringify(scene)).digest('hex').slice(0, 16);
    this.scenes.set(key, scene);
    this.use(key);
    for (const worker of this.workers) if (worker.ready) this.sendScene(worker, key);
    return key;
  }

  /** Marks a scene the most recently used and frees, on every worker, those past the limit. */
  private use(key: string): void {
    const at = this.retained.indexOf(key);
    if (at >= 0) this.retained.splice(at, 1);
    this.retained.push(key);
    while (this.retained.length > this.compiledScenes) {
      // A scene with jobs queued or running stays, even past the limit, until they are done.
      const idle = this.retained.find((k) => k !== key && !this.hasJobs(k));
      if (idle === undefined) return;
      this.retained.splice(this.retained.indexOf(idle), 1);
      for (const worker of this.workers) {
        if (!worker.scenes.delete(idle)) continue;
        worker.compiled.delete(idle);
        worker.transport.send({ type: 'forget', sceneKey: idle } satisfies ToWorker);
      }
    }
  }

  private hasJobs(key: string): boolean {
    const of = (p: Pending): boolean => p.job.sceneKey === key;
    return this.queue.some(of) || [...this.workers].some((w) => [...w.inFlight.values()].some(of));
  }

  private sendScene(worker: Worker, key: string): void {
    // A worker whose 'ready' arrives after close() is already being killed: writing to it fails.
    if (this.closed || worker.scenes.has(key)) return;
    const scene = this.scenes.get(key)!;
    const toolModule = toolModuleOf(scene);
    worker.transport.send({
      type: 'scene',
      sceneKey: key,
      scene,
      ...(toolModule ? { toolModule } : {}),
    } satisfies ToWorker);
    worker.scenes.add(key);
  }

  run(input: FineJobInput, signal?: AbortSignal, options: FineRunOptions = {}): Promise<FineResult> {
    if (this.closed) return Promise.reject(new FineJobError('fine pool is closed'));
    if (!this.scenes.has(input.sceneKey))
      return Promise.reject(new FineJobError(`unknown scene key ${input.sceneKey}`));
    // A job for a plan already given up is never queued: no abort would come to cancel it.
    if (signal?.aborted) return Promise.reject(new DOMException('fine job cancelled', 'AbortError'));
    this.use(input.sceneKey);
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        job: { ...input, id: this.nextId++ },
        attempts: 0,
        retryTimeouts: options.retryTimeouts ?? false,
        resolve,
        reject,
        signal,
      };
      if (signal) this.cancelWith(signal, pending);
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /**
   * Resolves once every worker has started and compiled every scene it keeps: the worker
   * processes' start-up (module loading, WebAssembly, MuJoCo compilation) takes both cores of a
   * small machine for seconds, and a run should arm only after it.
   */
  warm(): Promise<void> {
    return new Promise((resolve) => {
      this.warmWaiters.push(resolve);
      this.checkWarm();
    });
  }

  private checkWarm(): void {
    const warm =
      this.closed || [...this.workers].every((w) => this.retained.every((key) => w.compiled.has(key)));
    if (!warm) return;
    const waiters = this.warmWaiters;
    this.warmWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Process ids of the live workers. */
  pids(): number[] {
    return [...this.workers].map((w) => w.transport.pid).filter((p): p is number => p !== undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.checkWarm();
    for (const p of this.queue.splice(0)) p.reject(new FineJobError('fine pool closed'));
    const exits = [...this.workers].map((w) => {
      clearTimeout(w.timer);
      for (const p of w.inFlight.values()) p.reject(new FineJobError('fine pool closed'));
      w.inFlight.clear();
      w.transport.kill();
      return w.exited;
    });
    await Promise.all(exits);
  }

  private cancelWith(signal: AbortSignal, p: Pending): void {
    let queued = this.cancellable.get(signal);
    if (!queued) {
      const jobs = new Set<Pending>();
      queued = jobs;
      this.cancellable.set(signal, jobs);
      signal.addEventListener('abort', () => this.cancel(jobs), { once: true });
    }
    queued.add(p);
  }

  /** Drops the still-queued ones of these jobs; a job already on a worker finishes, its result unread. */
  private cancel(jobs: Set<Pending>): void {
    const dropped = this.queue.filter((p) => jobs.has(p));
    this.queue.splice(0, this.queue.length, ...this.queue.filter((p) => !jobs.has(p)));
    jobs.clear();
    for (const p of dropped) p.reject(new DOMException('fine job cancelled', 'AbortError'));
  }

  private startWorker(): void {
    const transport = this.spawn();
    let exited!: () => void;
    const worker: Worker = {
      transport,
      ready: false,
      scenes: new Set(),
      compiled: new Set(),
      inFlight: new Map(),
      timer: undefined,
      exited: new Promise((r) => (exited = r)),
      lost: undefined,
    };
    this.workers.add(worker);
    transport.onMessage((raw) => this.onMessage(worker, raw));
    transport.onExit((code) => {
      exited();
      this.onExit(worker, code);
    });
  }

  private onMessage(worker: Worker, raw: unknown): void {
    const parsed = fromWorkerSchema.safeParse(raw);
    if (!parsed.success) {
      this.failWorker(worker, `worker ${worker.transport.pid} sent a malformed message`);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'ready') {
      worker.ready = true;
      for (const key of this.retained) this.sendScene(worker, key);
    } else if (msg.type === 'scene-ready') {
      // A scene forgotten while it compiled stays forgotten.
      if (worker.scenes.has(msg.sceneKey)) worker.compiled.add(msg.sceneKey);
      this.checkWarm();
    } else if (msg.type === 'result') {
      const p = worker.inFlight.get(msg.result.id);
      if (p) {
        worker.inFlight.delete(msg.result.id);
        p.resolve(msg.result);
      }
      this.armTimer(worker);
    } else {
      const p = msg.id === null ? undefined : worker.inFlight.get(msg.id);
      if (p) {
        worker.inFlight.delete(p.job.id);
        p.reject(
          new FineJobError(`fine job ${p.job.id} failed on worker ${worker.transport.pid}: ${msg.message}`),
        );
      }
      this.armTimer(worker);
    }
    this.dispatch();
  }

  private onExit(worker: Worker, code: number | null): void {
    clearTimeout(worker.timer);
    this.workers.delete(worker);
    if (this.closed) return;
    // Unfinished jobs go back to the front of the queue, in their original order.
    const orphans = [...worker.inFlight.values()];
    worker.inFlight.clear();
    const retry: Pending[] = [];
    for (const p of orphans) {
      p.attempts++;
      if (p.attempts >= this.maxAttempts) {
        p.reject(
          new FineJobError(
            `fine job ${p.job.id} failed: its worker died ${p.attempts} times (last exit code ${code})`,
          ),
        );
      } else retry.push(p);
    }
    const requeued = this.requeue(retry);
    this.replacements++;
    this.onWorkerReplaced?.({
      pid: worker.transport.pid,
      reason: worker.lost?.reason ?? `worker ${worker.transport.pid} exited with code ${code}`,
      requeued: requeued + (worker.lost?.requeued ?? 0),
    });
    this.startWorker();
    this.dispatch();
  }

  /** Puts jobs back at the front of the queue, in their order, unless their caller gave up; returns how many. */
  private requeue(jobs: Pending[]): number {
    const live: Pending[] = [];
    for (const p of jobs) {
      if (p.signal?.aborted) p.reject(new DOMException('fine job cancelled', 'AbortError'));
      else {
        if (p.signal) this.cancellable.get(p.signal)?.add(p);
        live.push(p);
      }
    }
    this.queue.unshift(...live);
    return live.length;
  }

  /** Kills a misbehaving worker; its exit handler replaces it. */
  private failWorker(worker: Worker, reason: string): void {
    for (const p of worker.inFlight.values()) p.reject(new FineJobError(reason));
    worker.inFlight.clear();
    worker.lost = { reason, requeued: 0 };
    worker.transport.kill();
  }

  /**
   * Kills a worker whose job ran past the timeout. Jobs that may be retried go back to the queue
   * (another worker may take them at once); only the job that ran over counts an attempt, the rest
   * of its batch never started. The others fail with the timeout.
   */
  private timeOut(worker: Worker): void {
    // A worker runs its batch in order and answers each job as it ends: the first unanswered one ran over.
    const running = worker.inFlight.values().next().value!;
    const reason = `fine job ${running.job.id} timed out after ${this.jobTimeout} s on worker ${worker.transport.pid}`;
    const retry: Pending[] = [];
    for (const p of worker.inFlight.values()) {
      if (!p.retryTimeouts) p.reject(new FineJobError(`${reason}; the worker was replaced`));
      else if (p === running && ++p.attempts >= this.maxAttempts)
        p.reject(
          new FineJobError(`${reason}; the worker was replaced; gave up after ${p.attempts} attempts`),
        );
      else retry.push(p);
    }
    worker.inFlight.clear();
    worker.lost = { reason, requeued: this.requeue(retry) };
    worker.transport.kill();
    this.dispatch();
  }

  private armTimer(worker: Worker): void {
    clearTimeout(worker.timer);
    worker.timer = undefined;
    if (worker.inFlight.size === 0) return;
    // Jobs of a batch run one after another, so each gets the full budget from when the previous
    // one finished.
    worker.timer = setTimeout(() => this.timeOut(worker), this.jobTimeout * 1000);
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      // A worker the pool is killing gets nothing more: its jobs would only come back as orphans.
      if (!worker.ready || worker.lost || worker.inFlight.size > 0) continue;
      // Batches cut message overhead when the queue is long, but stay small enough that the
      // other workers still get a share of the remaining jobs.
      const batchSize = Math.max(1, Math.floor(this.queue.length / (2 * this.workers.size)));
      const batch = this.queue.splice(0, batchSize);
      for (const p of batch) {
        if (p.signal) this.cancellable.get(p.signal)?.delete(p);
        this.sendScene(worker, p.job.sceneKey);
        worker.inFlight.set(p.job.id, p);
      }
      worker.transport.send({ type: 'jobs', jobs: batch.map((p) => p.job) } satisfies ToWorker);
      this.armTimer(worker);
    }
  }
}
