/**
 * The main thread's side of the virtual lab's thread: starts the worker (the bundled entry in the
 * Electron build, else worker.ts from source through tsx, as the safety thread starts), starts the
 * lab in it and relays requests. The thread ending or failing while the lab should run is an
 * `error`: the lab's servers are gone with it.
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Setup } from '../../calibration/setup-file';
import type { LabConfigInput } from '../virtual-lab';
import { labConfigSchema } from '../virtual-lab';
import { fromLabSchema, type FromLab, type LabThreadPorts, type ToLab } from './messages';

/** Longest wait for the lab to start (MuJoCo world, servers listening), ms. */
const START_TIMEOUT_MS = 30_000;
/** Longest wait for the thread to stop its servers and end, ms. */
const STOP_TIMEOUT_MS = 5_000;

/** An RTDE input package the virtual controller decoded; receivedAt on this thread's performance.now(). */
export interface LabInputWrite {
  names: string[];
  values: Extract<FromLab, { type: 'input' }>['values'];
  receivedAt: number;
}

type Events = {
  /** The thread ended or failed while the lab should run. */
  error: [Error];
};

/** The entry electron-vite builds next to the main bundle (electron.vite.config.ts), if this is a build. */
const bundledEntry = new URL('./lab-worker.js', import.meta.url);
const sourceEntry = new URL('./worker.ts', import.meta.url).href;
const bootstrap = new URL('./bootstrap.mjs', import.meta.url);

function startWorker(): Worker {
  if (bundledEntry.protocol === 'file:' && existsSync(fileURLToPath(bundledEntry)))
    return new Worker(bundledEntry);
  return new Worker(bootstrap, { workerData: { entry: sourceEntry } });
}

export class VirtualLabThread extends EventEmitter<Events> {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private readonly inputListeners = new Set<(w: LabInputWrite) => void>();
  private stopping = false;
  private ended = false;
  private failed: Error | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    readonly ports: LabThreadPorts,
    /** The lab's true frames, as the setup a calibration would produce. */
    readonly setup: Setup,
  ) {
    super();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (raw: unknown) => this.receive(raw));
    worker.on('error', (err) => this.fail(new Error(`the virtual lab thread failed: ${err.message}`)));
    worker.on('exit', (code) => {
      this.ended = true;
      if (!this.stopping) this.fail(new Error(`the virtual lab thread ended (code ${code})`));
    });
  }

  /** Starts a thread and the lab in it; resolves once its servers listen. */
  static async start(config: LabConfigInput): Promise<VirtualLabThread> {
    const worker = startWorker();
    const started = new Promise<Extract<FromLab, { type: 'started' }>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the virtual lab thread did not start')),
        START_TIMEOUT_MS,
      );
      const done = (err: Error | undefined, m?: Extract<FromLab, { type: 'started' }>): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (err) reject(err);
        else resolve(m!);
      };
      const onMessage = (raw: unknown): void => {
        const parsed = fromLabSchema.safeParse(raw);
        if (!parsed.success) return done(new Error(`not a virtual lab message: ${parsed.error.message}`));
        if (parsed.data.type === 'started') done(undefined, parsed.data);
        else if (parsed.data.type === 'failed') done(new Error(parsed.data.message));
        else done(new Error(`the virtual lab thread sent ${parsed.data.type} before it started`));
      };
      const onError = (err: Error): void => done(err);
      const onExit = (code: number): void =>
        done(new Error(`the virtual lab thread ended (code ${code}) before it started`));
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    const message: ToLab = { type: 'start', config: labConfigSchema.parse(config) };
    worker.postMessage(message);
    try {
      const m = await started;
      return new VirtualLabThread(worker, m.ports, m.setup);
    } catch (err) {
      await worker.terminate();
      throw err;
    }
  }

  /** Whether the lab runs (the thread neither ended nor failed). */
  get alive(): boolean {
    return !this.ended && this.failed === undefined;
  }

  /** Resets the table to the scene's start poses; resolves once a frame shows them there. */
  placeObjects(): Promise<void> {
    return this.request('place-objects');
  }

  /** Fault injection: the virtual controller enters a protective stop. */
  injectProtectiveStop(): Promise<void> {
    return this.request('protective-stop');
  }

  /**
   * Calls back with every RTDE input package the virtual controller decodes (a test's or bench's
   * view of what the robot was told); the thread forwards them only while someone listens.
   * Returns unsubscribe.
   */
  onInput(listener: (w: LabInputWrite) => void): () => void {
    if (this.inputListeners.size === 0) this.send({ type: 'watch-input', on: true });
    this.inputListeners.add(listener);
    return () => {
      if (this.inputListeners.delete(listener) && this.inputListeners.size === 0)
        this.send({ type: 'watch-input', on: false });
    };
  }

  /** Stops the lab's servers and ends the thread (ended at once when it does not answer). */
  async stop(): Promise<void> {
    if (this.stopping) return this.exited;
    this.stopping = true;
    if (this.ended) return;
    this.send({ type: 'stop' });
    const timer = setTimeout(() => void this.worker.terminate(), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private request(type: 'place-objects' | 'protective-stop'): Promise<void> {
    if (!this.alive) return Promise.reject(this.failed ?? new Error('the virtual lab thread has ended'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ type, id });
    });
  }

  private send(m: ToLab): void {
    if (!this.ended) this.worker.postMessage(m);
  }

  private receive(raw: unknown): void {
    const parsed = fromLabSchema.safeParse(raw);
    if (!parsed.success) {
      this.fail(new Error(`not a virtual lab message: ${parsed.error.message}`));
      void this.worker.terminate();
      return;
    }
    const m = parsed.data;
    if (m.type === 'done' || m.type === 'refused') {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.type === 'done') w?.resolve();
      else w?.reject(new Error(m.message));
    } else if (m.type === 'input') {
      const w = { names: m.names, values: m.values, receivedAt: m.receivedAt - performance.timeOrigin };
      for (const l of this.inputListeners) l(w);
    }
  }

  private fail(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
    if (this.failed || this.stopping) return;
    this.failed = err;
    this.emit('error', err);
  }
}
