/**
 * The latency of a prediction batch on W fine workers, from measured per-step costs: what
 * `npm run bench -- parareal-crossover` checks against this machine and what `auto` chooses by.
 *
 * The model replays the worker pool's own schedule (fine-pool.ts) and Parareal's (parareal.ts) as
 * a discrete-event simulation, with every worker on a core of its own:
 * - jobs queue in submission order; an idle worker takes max(1, floor(queued / 2W)) of them in one
 *   message and runs them one after another; it is idle again once the main thread has taken its
 *   last result;
 * - the fine model alone submits one job of H controls per sequence;
 * - Parareal sweeps each sequence with the coarse model, submits its N slices (jobs of m controls), and in
 *   iteration k walks the slices as their fine results come in, submitting iteration k+1's job
 *   for slice n+1 as soon as slice n is corrected (pipelining); slices whose start is already
 *   exact reuse the earlier fine result (iteration k runs slices k-1..N-1);
 * - the main thread is one serial resource: taking a result, the coarse slices of the correction
 *   sweep. Its time does not shrink with more workers, which is what ends Parareal's scaling.
 * Time not spent in either process (the operating system handing messages over) is `transit`.
 */
import { z } from 'zod';
import type { PredictionModel } from './predictor';

/** Costs per unit of work, seconds, as the bench measures them. */
export const costConstantsSchema = z.object({
  /** Worker time per fine control (MuJoCo steps of one control duration). */
  fineControl: z.number().positive(),
  /** Worker time per fine job beyond its controls (reset, state in and out). */
  fineJob: z.number().min(0),
  /** Main-thread time per fine job: sending it, taking its result, the sweep's bookkeeping. */
  mainPerJob: z.number().min(0),
  /** Per job, between the processes: message hand-over that neither process's clock shows. */
  transit: z.number().min(0),
  /** Main-thread time per coarse control, with Parareal's correction and projection. */
  coarseControl: z.number().min(0),
});
export type CostConstants = z.infer<typeof costConstantsSchema>;

export interface BatchShape {
  workers: number;
  /** Control sequences in the batch (1 for one prediction). */
  sequences: number;
  /** Controls per sequence. */
  horizon: number;
}

interface Job {
  seq: number;
  /** Parareal: the iteration that submitted it and its slice; fine alone: iteration 0, slice 0. */
  k: number;
  n: number;
  controls: number;
  done: boolean;
}

interface Worker {
  inFlight: number;
}

/** Expected wall time (s) of predicting one batch with `model` (coarse, fine or Parareal). */
export function predictLatency(model: PredictionModel, shape: BatchShape, c: CostConstants): number {
  const { workers: W, sequences: S, horizon: H } = shape;
  if (!Number.isInteger(W) || W < 1) throw new Error(`worker count must be >= 1, got ${W}`);
  if (model.kind === 'coarse') return S * H * c.coarseControl;
  // Slices of m controls: N of them, each a job of m controls.
  const m = model.kind === 'parareal' ? model.controlsPerSlice : H;
  if (!Number.isInteger(m) || m < 1 || H % m !== 0)
    throw new Error(`${H} controls do not divide into slices of ${m}`);
  const N = H / m;
  const K = model.kind === 'parareal' ? Math.min(model.iterations, N) : 0;
  if (model.kind === 'parareal' && K === 0) return S * H * c.coarseControl;

  let now = 0; // the main thread's clock
  const queue: Job[] = [];
  const pool: Worker[] = Array.from({ length: W }, () => ({ inFlight: 0 }));
  const events: { t: number; worker: Worker; job: Job }[] = [];
  const dispatch = (): void => {
    for (const worker of pool) {
      if (queue.length === 0) return;
      if (worker.inFlight > 0) continue;
      const batch = queue.splice(0, Math.max(1, Math.floor(queue.length / (2 * W))));
      let t = now + c.transit / 2;
      for (const job of batch) {
        t += c.fineJob + c.fineControl * job.controls;
        events.push({ t: t + c.transit / 2, worker, job });
      }
      worker.inFlight = batch.length;
    }
  };
  const submit = (job: Job): void => {
    queue.push(job);
    dispatch();
  };

  // Parareal's jobs by iteration and slice: jobs[seq][k][n] (k >= 1; absent where reused).
  const jobs: Job[][][] = Array.from({ length: S }, () => []);
  const sweep = Array.from({ length: S }, () => ({ k: 1, n: 0, finished: K === 0 }));
  let unfinished = S;
  const jobFor = (seq: number, k: number, n: number): Job => jobs[seq]![Math.min(k, n + 1)]![n]!;
  const newJob = (seq: number, k: number, n: number, controls: number): Job => {
    const job: Job = { seq, k, n, controls, done: false };
    (jobs[seq]![k] ??= [])[n] = job;
    return job;
  };

  if (K === 0) {
    for (let s = 0; s < S; s++) submit(newJob(s, 0, 0, H));
  } else {
    for (let s = 0; s < S; s++) {
      now += H * c.coarseControl; // the coarse sweep, iteration 0
      for (let n = 0; n < N; n++) submit(newJob(s, 1, n, m));
    }
  }

  /** Walks a sequence's correction sweep as far as its fine results allow. */
  const advance = (seq: number): void => {
    const s = sweep[seq]!;
    while (!s.finished && jobFor(seq, s.k, s.n).done) {
      // A slice whose start changed is swept again with the coarse model (slices from k on).
      if (s.n >= s.k) now += m * c.coarseControl;
      const last = s.k >= K;
      // Iteration k+1's job for slice n+1 is new where that slice's start is not yet exact.
      if (!last && s.n + 1 < N && s.n + 1 >= s.k) submit(newJob(seq, s.k + 1, s.n + 1, m));
      s.n++;
      if (s.n === N) {
        if (last) {
          s.finished = true;
          unfinished--;
        } else {
          s.k++;
          s.n = 0;
        }
      }
    }
  };

  while (unfinished > 0) {
    if (events.length === 0) throw new Error('cost model: no job in flight while sequences wait');
    let i = 0;
    for (let j = 1; j < events.length; j++) if (events[j]!.t < events[i]!.t) i = j;
    const e = events.splice(i, 1)[0]!;
    now = Math.max(now, e.t) + c.mainPerJob;
    e.job.done = true;
    e.worker.inFlight--;
    if (K === 0) unfinished--;
    else advance(e.job.seq);
    dispatch();
  }
  return now;
}

/** One-control fine jobs of one sequence: K iterations over N slices, exact slices skipped. */
export function fineJobs(K: number, N: number): number {
  let jobs = 0;
  for (let k = 1; k <= Math.min(K, N); k++) jobs += N - k + 1;
  return jobs;
}

/** Parareal with K iterations and (as the planner runs it) one control per slice. */
export const pararealModel = (iterations: number, controlsPerSlice = 1): PredictionModel => ({
  kind: 'parareal',
  iterations,
  tolerance: null,
  controlsPerSlice,
});

/**
 * The smallest worker count from `candidates` (ascending) from which `model` predicts the batch
 * sooner than the fine model at every larger candidate too; null if it never does.
 */
export function crossoverWorkers(
  model: PredictionModel,
  shape: Omit<BatchShape, 'workers'>,
  c: CostConstants,
  candidates: readonly number[],
): number | null {
  let from: number | null = null;
  for (const W of candidates) {
    const wins =
      predictLatency(model, { ...shape, workers: W }, c) <
      predictLatency({ kind: 'fine' }, { ...shape, workers: W }, c);
    if (wins) from ??= W;
    else from = null;
  }
  return from;
}
