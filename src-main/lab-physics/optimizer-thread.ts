/**
 * NLopt in a worker thread. NLopt calls its objective synchronously, but an evaluation of the fit
 * runs on the fine workers (asynchronous, in parallel). So the optimiser runs here and blocks in
 * each objective call (Atomics.wait) while the main thread evaluates the point on the workers and
 * writes the value into shared memory; the main thread itself never blocks. Evaluating in-process
 * instead would run every replay on one core, the main thread's.
 *
 * Both sides are in this file: `minimise` (main thread) starts the thread with the source entry
 * through common/worker-bootstrap.mjs; the thread's side runs when this module is its entry.
 */
import { createRequire } from 'node:module';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { z } from 'zod';

/** The part of nlopt-js (NLopt compiled to WebAssembly; it ships no types) the fit uses. */
interface Nlopt {
  ready: Promise<void>;
  Algorithm: Record<Algorithm, unknown>;
  Optimize: new (
    algorithm: unknown,
    dimensions: number,
  ) => {
    setLowerBounds(bounds: number[]): void;
    setUpperBounds(bounds: number[]): void;
    setMaxeval(evaluations: number): void;
    /** Called synchronously; the gradient is null for the derivative-free (LN_) algorithms. */
    setMinObjective(f: (x: Float64Array, gradient: Float64Array | null) => number, tolerance: number): void;
    optimize(x0: number[]): { success: boolean; x: number[]; value: number };
  };
  GC: { flush(): void };
}

export const ALGORITHMS = ['LN_BOBYQA', 'LN_COBYLA', 'LN_SBPLX', 'LN_NELDERMEAD'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

const problemSchema = z.object({
  algorithm: z.enum(ALGORITHMS),
  x0: z.array(z.number()),
  lower: z.array(z.number()),
  upper: z.array(z.number()),
  maxEvaluations: z.number().int().min(1),
  tolerance: z.number().positive(),
});
export type Problem = z.infer<typeof problemSchema>;

const fromThreadSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('evaluate'), x: z.array(z.number()) }),
  z.object({ type: z.literal('done'), x: z.array(z.number()), value: z.number(), success: z.boolean() }),
]);

/** Shared memory layout: the flag (0 waiting, 1 value ready, 2 stop) and the value. */
const FLAG_BYTES = 8;

export interface Minimum {
  x: number[];
  value: number;
  success: boolean;
}

/**
 * Minimises `f` (asynchronous) with NLopt's derivative-free `algorithm` within the bounds. An
 * error thrown by `f` stops the optimiser and rejects.
 */
export function minimise(problem: Problem, f: (x: number[]) => Promise<number>): Promise<Minimum> {
  const shared = new SharedArrayBuffer(FLAG_BYTES + 8);
  const flag = new Int32Array(shared, 0, 1);
  const value = new Float64Array(shared, FLAG_BYTES, 1);
  const bootstrap = new URL('../common/worker-bootstrap.mjs', import.meta.url);
  const worker = new Worker(bootstrap, {
    workerData: { entry: import.meta.url, problem: problemSchema.parse(problem), shared },
  });
  return new Promise<Minimum>((resolve, reject) => {
    let failed: Error | null = null;
    worker.on('message', (raw: unknown) => {
      const m = fromThreadSchema.parse(raw);
      if (m.type === 'done') {
        void worker.terminate();
        if (failed) reject(failed);
        else resolve({ x: m.x, value: m.value, success: m.success });
        return;
      }
      f(m.x).then(
        (v) => {
          value[0] = Number.isFinite(v) ? v : Number.MAX_VALUE;
          Atomics.store(flag, 0, 1);
          Atomics.notify(flag, 0);
        },
        (err: unknown) => {
          failed = err instanceof Error ? err : new Error(String(err));
          Atomics.store(flag, 0, 2);
          Atomics.notify(flag, 0);
        },
      );
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (failed) reject(failed);
      else if (code !== 0) reject(new Error(`the optimiser thread exited with code ${code}`));
    });
  });
}

/** The thread's side: runs NLopt, each objective call waiting for the main thread's value. */
async function runThread(port: NonNullable<typeof parentPort>): Promise<void> {
  const { problem, shared } = workerData as { problem: Problem; shared: SharedArrayBuffer };
  const flag = new Int32Array(shared, 0, 1);
  const value = new Float64Array(shared, FLAG_BYTES, 1);
  const nlopt = createRequire(import.meta.url)('nlopt-js') as Nlopt;
  await nlopt.ready;
  const opt = new nlopt.Optimize(nlopt.Algorithm[problem.algorithm], problem.x0.length);
  opt.setLowerBounds(problem.lower);
  opt.setUpperBounds(problem.upper);
  opt.setMaxeval(problem.maxEvaluations);
  let stopped = false;
  opt.setMinObjective((x: Float64Array) => {
    // After a failed evaluation NLopt is only run to its end: no more work for the main thread.
    if (stopped) return Number.MAX_VALUE;
    Atomics.store(flag, 0, 0);
    port.postMessage({ type: 'evaluate', x: Array.from(x) });
    Atomics.wait(flag, 0, 0);
    if (Atomics.load(flag, 0) === 2) stopped = true;
    return value[0]!;
  }, problem.tolerance);
  const result = opt.optimize(problem.x0);
  port.postMessage({ type: 'done', x: result.x, value: result.value, success: result.success && !stopped });
  nlopt.GC.flush();
}

const isThreadEntry =
  parentPort !== null && (workerData as { entry?: string } | null)?.entry === import.meta.url;
if (isThreadEntry) await runThread(parentPort!);
