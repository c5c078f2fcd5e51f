/**
 * The main thread's side of the virtual lab's thread: starts the worker (common/worker-thread.ts:
 * the bundled entry in the Electron build, else worker.ts from source, as the safety thread starts),
 * starts the lab in it and relays requests. The thread ending or failing while the lab should run is an
 * `error`: the lab's servers are gone with it.
 */
import { EventEmitter } from 'node:events';
import type { Setup } from '../../calibration/setup-file';
import type { PriorityResult } from '../../common/thread-priority';
import { WorkerThread } from '../../common/worker-thread';
import type { LabConfigInput } from '../virtual-lab';
import { toolModules } from '#contract/end-effector/registry';
import { labConfigSchema } from '../virtual-lab';
import { fromLabSchema, type FromLab, type LabThreadPorts, type ToLab } from './messages';

/** Longest wait for the lab to start (MuJoCo world, servers listening), s. */
const START_TIMEOUT = 30;
/** Longest wait for the thread to stop its servers and end, s. */
const STOP_TIMEOUT = 5;

/** An RTDE input package the virtual controller decoded; receivedAt in s (common/clock, the same in every thread). */
export interface LabInputWrite {
  names: string[];
  values: Extract<FromLab, { type: 'input' }>['values'];
  receivedAt: number;
}

type Events = {
  /** The thread ended or failed while the lab should run. */
  error: [Error];
};

/** The bundled entry electron-vite builds next to the main bundle (electron.vite.config.ts), else the source. */
const entry = {
  bundled: new URL('./lab-worker.js', import.meta.url),
  source: new URL('./worker.ts', import.meta.url),
};

export class VirtualLabThread extends EventEmitter<Events> {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private readonly inputListeners = new Set<(w: LabInputWrite) => void>();
  private stopping = false;
  private failed: Error | undefined;

  private constructor(
    private readonly worker: WorkerThread<FromLab>,
    readonly ports: LabThreadPorts,
    /** The lab's true frames, as the setup a calibration would produce. */
    readonly setup: Setup,
    /** Whether the lab's thread runs at raised priority, or why not (common/thread-priority.ts). */
    readonly priority: PriorityResult,
  ) {
    super();
    worker.listen({
      message: (m) => this.receive(m),
      invalid: (problem) => this.fail(new Error(`not a virtual lab message: ${problem}`)),
      error: (err) => this.fail(new Error(`the virtual lab thread failed: ${err.message}`)),
      exit: (code) => {
        if (!this.stopping) this.fail(new Error(`the virtual lab thread ended (code ${code})`));
      },
    });
  }

  /** Starts a thread and the lab in it; resolves once its servers listen. */
  static async start(config: LabConfigInput): Promise<VirtualLabThread> {
    const start: ToLab = { type: 'start', config: labConfigSchema.parse(config), toolModules: toolModules() };
    const { thread, answer } = await WorkerThread.start({
      entry,
      schema: fromLabSchema,
      start,
      timeout: START_TIMEOUT,
      settle: (m) =>
        m.type === 'started'
          ? m
          : new Error(
              m.type === 'failed' ? m.message : `the virtual lab thread sent ${m.type} before it started`,
            ),
      errors: {
        timeout: 'the virtual lab thread did not start',
        invalid: (problem) => `not a virtual lab message: ${problem}`,
        exit: (code) => `the virtual lab thread ended (code ${code}) before it started`,
      },
      abandon: (t) => t.terminate(),
    });
    return new VirtualLabThread(thread, answer.ports, answer.setup, answer.priority);
  }

  /** Whether the lab runs (the thread neither ended nor failed). */
  get alive(): boolean {
    return !this.worker.ended && this.failed === undefined;
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
    if (this.stopping) return this.worker.exited;
    this.stopping = true;
    const stop: ToLab = { type: 'stop' };
    await this.worker.end(stop, STOP_TIMEOUT);
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
    this.worker.post(m);
  }

  private receive(m: FromLab): void {
    if (m.type === 'done' || m.type === 'refused') {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.type === 'done') w?.resolve();
      else w?.reject(new Error(m.message));
    } else if (m.type === 'input') {
      const w = { names: m.names, values: m.values, receivedAt: m.receivedAt };
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
