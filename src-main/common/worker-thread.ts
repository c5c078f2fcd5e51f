/**
 * A node:worker_threads worker that speaks a zod-checked protocol: the main thread's side of the
 * safety thread (lab-link/safety-thread) and of the virtual lab's thread (virtual-lab/lab-thread),
 * and the entry side both workers start with.
 *
 * The worker is the bundled entry in the Electron build (electron-vite puts it next to the main
 * bundle), else the TypeScript entry from source through tsx (worker-bootstrap.mjs), as the fine
 * workers start in a terminal. Every message from the worker is parsed before its owner sees it:
 * one that fails the schema is reported as `invalid` and the worker is ended, never acted on.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, type MessagePort } from 'node:worker_threads';
import type { z } from 'zod';
import { raiseThreadPriority, type PriorityResult } from './thread-priority';

/** Where a worker's code is: the bundled entry (used when that file exists) and the source entry. */
export interface WorkerEntry {
  bundled: URL;
  source: URL;
}

/** Registers tsx in the worker, then imports the source entry (a worker takes no loader hook on its command line). */
const bootstrap = new URL('./worker-bootstrap.mjs', import.meta.url);

function spawn(entry: WorkerEntry): Worker {
  if (entry.bundled.protocol === 'file:' && existsSync(fileURLToPath(entry.bundled)))
    return new Worker(entry.bundled);
  return new Worker(bootstrap, { workerData: { entry: entry.source.href } });
}

/** What a started worker tells its owner. */
export interface ThreadListener<M> {
  /** A message that passed the schema. */
  message(m: M): void;
  /** A message that failed the schema (zod's account of why); the worker is already being ended. */
  invalid(problem: string): void;
  /** The worker threw. */
  error(err: Error): void;
  /** The worker ended, asked to or not. */
  exit(code: number): void;
}

export interface StartOptions<M, R> {
  entry: WorkerEntry;
  /** What every message from the worker must be. */
  schema: z.ZodType<M>;
  /** The first message to the worker (what it should start doing). */
  start: unknown;
  /** Longest wait for the start's answer, s. */
  timeout: number;
  /** The start's answer (R), its failure (an Error), or neither (undefined: kept for the owner). */
  settle(m: M): R | Error | undefined;
  /** The errors of a start that did not come about, in the owner's words. */
  errors: {
    timeout: string;
    invalid(problem: string): string;
    exit(code: number): string;
  };
  /** Lets go of a worker whose start failed while it still runs. */
  abandon(thread: WorkerThread<M>): Promise<unknown>;
}

type Event<M> =
  | { kind: 'message'; m: M }
  | { kind: 'invalid'; problem: string }
  | { kind: 'error'; err: Error }
  | { kind: 'exit'; code: number };

/** The main thread's handle on a worker: parsed messages in, messages out while it runs. */
export class WorkerThread<M> {
  /** Resolves once the worker has ended. */
  readonly exited: Promise<void>;
  private hasEnded = false;
  private listener: ThreadListener<M> | undefined;
  /** Events that came before anyone listened (during the start, and before the owner took over). */
  private readonly queued: Event<M>[] = [];

  private constructor(
    private readonly worker: Worker,
    schema: z.ZodType<M>,
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (raw: unknown) => {
      const parsed = schema.safeParse(raw);
      if (parsed.success) return this.deliver({ kind: 'message', m: parsed.data });
      void worker.terminate();
      this.deliver({ kind: 'invalid', problem: parsed.error.message });
    });
    worker.on('error', (err) => this.deliver({ kind: 'error', err }));
    worker.on('exit', (code) => {
      this.hasEnded = true;
      this.deliver({ kind: 'exit', code });
    });
  }

  /**
   * Starts the worker, posts `start` and waits for its answer (`settle`); messages that are
   * neither answer nor failure wait for the owner's `listen`. A failed start ends the worker.
   */
  static async start<M, R>(o: StartOptions<M, R>): Promise<{ thread: WorkerThread<M>; answer: R }> {
    const thread = new WorkerThread(spawn(o.entry), o.schema);
    const kept: Event<M>[] = [];
    const answer = new Promise<R>((resolve, reject) => {
      const done = (err: Error | undefined, r?: R): void => {
        clearTimeout(timer);
        thread.listener = undefined;
        if (err) reject(err);
        else resolve(r as R);
      };
      const timer = setTimeout(() => done(new Error(o.errors.timeout)), o.timeout * 1000);
      thread.listen({
        message: (m) => {
          const settled = o.settle(m);
          if (settled instanceof Error) done(settled);
          else if (settled !== undefined) done(undefined, settled);
          else kept.push({ kind: 'message', m });
        },
        invalid: (problem) => done(new Error(o.errors.invalid(problem))),
        error: (err) => done(err),
        exit: (code) => done(new Error(o.errors.exit(code))),
      });
    });
    thread.post(o.start);
    try {
      const r = await answer;
      thread.queued.unshift(...kept);
      return { thread, answer: r };
    } catch (err) {
      if (!thread.hasEnded) await o.abandon(thread);
      throw err;
    }
  }

  /** Whether the worker has ended. */
  get ended(): boolean {
    return this.hasEnded;
  }

  /** Hands the worker's events to its owner, those that came before first. */
  listen(listener: ThreadListener<M>): void {
    this.listener = listener;
    for (const e of this.queued.splice(0)) this.dispatch(listener, e);
  }

  /** Posts a message unless the worker has ended. */
  post(message: unknown): void {
    if (!this.hasEnded) this.worker.postMessage(message);
  }

  /** Ends the worker at once. */
  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  /** Asks the worker to end (`request`); ends it after `grace` s when it has not. */
  async end(request: unknown, grace: number): Promise<void> {
    if (this.hasEnded) return;
    this.post(request);
    const timer = setTimeout(() => void this.worker.terminate(), grace * 1000);
    await this.exited;
    clearTimeout(timer);
  }

  private deliver(e: Event<M>): void {
    if (this.listener) this.dispatch(this.listener, e);
    else this.queued.push(e);
  }

  private dispatch(l: ThreadListener<M>, e: Event<M>): void {
    switch (e.kind) {
      case 'message':
        return l.message(e.m);
      case 'invalid':
        return l.invalid(e.problem);
      case 'error':
        return l.error(e.err);
      case 'exit':
        return l.exit(e.code);
    }
  }
}

/**
 * The worker's side: its port to the main thread, and its raised scheduling priority (or why it
 * could not be raised). The threads that use it stand for devices or control loops that must not
 * wait behind the planner and whatever else runs on the machine (thread-priority.ts).
 */
export function enterWorkerThread(name: string): { port: MessagePort; priority: PriorityResult } {
  const port = parentPort;
  if (!port) throw new Error(`${name} runs as a worker thread`);
  return { port, priority: raiseThreadPriority() };
}
