/**
 * Parareal (ISRR 2019 Eq. 3) on the pushing state, batched over R control sequences:
 *
 *   x_{n+1}^{k+1} = C(x_n^{k+1}) + F(x_n^k) - C(x_n^k),  then projected to a feasible state.
 *
 * Iteration 0 is the coarse sweep. In iteration k, slice n's fine job F(x_n^{k-1}) runs on the
 * worker pool; the serial correction sweep walks the slices as their fine results arrive.
 *
 * Scheduling:
 * - Pipelining: as soon as the sweep of iteration k has produced x_{n+1}^k, the fine job that
 *   iteration k+1 needs for slice n+1 is submitted, before the rest of iteration k is done.
 * - No fine job is run twice: a slice whose start state is bit-for-bit the one of the previous
 *   iteration reuses that fine result. After iteration k the first k slice starts are exact, so
 *   iteration k+1 needs fine work only from slice k on.
 * - A slice whose start did not change takes the fine result as it is (C_new - C_old is exactly 0
 *   in exact arithmetic but not in floating point), so converged slices are bit-identical to the
 *   serial fine trajectory.
 * - Stopping: after K iterations, or when the largest change of any slider pose between two
 *   iterates falls below the tolerance, or when every slice is exact (k = number of slices).
 */
import { monotonicSeconds } from '../common/clock';
import type { Control, State, StateLayout, Tolerance } from '#contract/state';
import type { FineResult } from '#contract/worker-protocol';
import { projectFeasible, type ProjectionGeometry } from '#physics/projection';
import type { FineJobInput } from './fine-pool';

export interface CoarsePropagator {
  readonly layout: StateLayout;
  step(x: State, ux: number, uy: number, dt: number, out?: State): State;
  /**
   * Optional: one step of many states at once. When present, the coarse sweep (iteration 0) of
   * all sequences of a request runs in lockstep through it, one call per control index (the
   * learned model evaluates its network once per call instead of once per state).
   */
  stepBatch?(xs: readonly State[], us: readonly Control[], dt: number): State[];
}

export interface FineRunner {
  readonly size: number;
  run(job: FineJobInput, signal?: AbortSignal): Promise<FineResult>;
}

/** The real-world pushing spread (Yu et al., via ISRR 2019 Table I): 8.1 mm and 4.2 deg. */
export const realWorldSpread: Tolerance = { translation: 0.0081, rotation: (4.2 * Math.PI) / 180 };

export interface PararealSettings {
  /** Maximum number of Parareal iterations K (0 = coarse only). */
  iterations: number;
  /** Adaptive stop; null runs exactly K iterations (or until every slice is exact). */
  tolerance: Tolerance | null;
  controlsPerSlice: number;
  dt: number;
}

export interface SequencePrediction {
  /** iterates[k][n]: the state at control boundary n (0..N) after iteration k (0 = coarse). */
  iterates: State[][];
  /** changes[k-1]: largest slider pose change between iterates k and k-1. */
  changes: Tolerance[];
  stoppedBy: 'iterations' | 'tolerance' | 'exact';
}

/**
 * Fine work done on the workers: their CPU time (s), which other processes on the same cores
 * stretch far less than wall time, and what nothing but the work itself changes: MuJoCo steps,
 * and the constraint solver's iterations summed over them (worker-protocol.ts FineResult).
 */
export interface FineWork {
  cpu: number;
  steps: number;
  solverIterations: number;
}

export const noFineWork = (): FineWork => ({ cpu: 0, steps: 0, solverIterations: 0 });

/** Adds `b` (a fine result or another total) into `a`, and returns `a`. */
export function addFineWork(a: FineWork, b: FineWork): FineWork {
  a.cpu += b.cpu;
  a.steps += b.steps;
  a.solverIterations += b.solverIterations;
  return a;
}

/** Where a prediction's time went; every time in seconds. */
export interface PredictionTiming {
  wallTime: number;
  coarseTime: number;
  /** Worker time of each fine job that ran. */
  fineJobTimes: number[];
  /** The fine jobs' work, summed over the jobs that ran. */
  fineWork: FineWork;
  fineJobs: number;
  /** Fine results taken from an earlier iteration instead of being recomputed. */
  fineJobsReused: number;
  /** Wall time beyond coarse work plus fine work spread perfectly over the workers. */
  overheadTime: number;
}

export interface PredictionRequest {
  /** One start state for all sequences, or one per sequence. */
  x0: State | State[];
  controls: Control[][];
  /**
   * Aborting it drops the request's fine jobs still queued (a job already on a worker finishes);
   * the prediction then rejects with an AbortError.
   */
  signal?: AbortSignal;
}

export interface PararealResult {
  sequences: SequencePrediction[];
  timing: PredictionTiming;
}

export interface PararealContext {
  sceneKey: string;
  coarse: CoarsePropagator;
  fine: FineRunner;
  projection: ProjectionGeometry;
}

interface SliceJob {
  start: State;
  result: Promise<FineResult>;
}

export async function parareal(
  ctx: PararealContext,
  settings: PararealSettings,
  request: PredictionRequest,
): Promise<PararealResult> {
  const t0 = monotonicSeconds();
  const timing: PredictionTiming = {
    wallTime: 0,
    coarseTime: 0,
    fineJobTimes: [],
    fineWork: noFineWork(),
    fineJobs: 0,
    fineJobsReused: 0,
    overheadTime: 0,
  };
  const starts = Array.isArray(request.x0) ? request.x0 : request.controls.map(() => request.x0 as State);
  if (starts.length !== request.controls.length)
    throw new Error('one start state per control sequence, or one for all');
  const sweeps = ctx.coarse.stepBatch
    ? batchedCoarseSweep(ctx.coarse, settings, starts, request.controls, timing)
    : undefined;
  const sequences = await Promise.all(
    request.controls.map(async (controls, r) => {
      const speculative = new AbortController();
      try {
        return await runSequence(
          ctx,
          settings,
          starts[r]!,
          controls,
          timing,
          request.signal ? AbortSignal.any([speculative.signal, request.signal]) : speculative.signal,
          sweeps?.[r],
        );
      } finally {
        speculative.abort(); // a sequence that stopped early drops its queued look-ahead jobs
      }
    }),
  );
  timing.wallTime = monotonicSeconds() - t0;
  const fineTotal = timing.fineJobTimes.reduce((a, b) => a + b, 0);
  timing.overheadTime = Math.max(0, timing.wallTime - timing.coarseTime - fineTotal / ctx.fine.size);
  return { sequences, timing };
}

async function runSequence(
  ctx: PararealContext,
  settings: PararealSettings,
  x0: State,
  controls: Control[],
  timing: PredictionTiming,
  signal: AbortSignal,
  sweep: State[][] | undefined,
): Promise<SequencePrediction> {
  const { coarse } = ctx;
  const L = coarse.layout;
  const m = settings.controlsPerSlice;
  if (!Number.isInteger(m) || m < 1)
    throw new Error(`controls per slice must be a positive integer, got ${m}`);
  if (controls.length % m !== 0) {
    throw new Error(`${controls.length} controls do not divide into slices of ${m}`);
  }
  const slices = controls.length / m;
  const sliceControls = (n: number): Control[] => controls.slice(n * m, (n + 1) * m);

  const coarseSlice = (start: State, n: number): State[] => {
    const c0 = monotonicSeconds();
    const out: State[] = [];
    let x = start;
    for (const u of sliceControls(n)) {
      x = coarse.step(x, u[0]!, u[1]!, settings.dt);
      out.push(x);
    }
    timing.coarseTime += monotonicSeconds() - c0;
    return out;
  };

  const submit = (n: number, start: State, previous: SliceJob | undefined): SliceJob => {
    if (previous && sameBits(previous.start, start)) {
      timing.fineJobsReused++;
      return previous;
    }
    const result = ctx.fine.run(
      {
        sceneKey: ctx.sceneKey,
        x: start,
        controls: sliceControls(n).map((u) => [...u]),
        dt: settings.dt,
      },
      signal,
    );
    result.then(
      (r) => {
        timing.fineJobs++;
        timing.fineJobTimes.push(r.seconds);
        addFineWork(timing.fineWork, r);
      },
      () => undefined, // cancelled speculative jobs are not an error; real failures surface through await
    );
    return { start, result };
  };

  // Iteration 0: the coarse sweep.
  let coarseOld: State[][] = [];
  const first: State[] = [x0];
  for (let n = 0; n < slices; n++) {
    const c = sweep?.[n] ?? coarseSlice(first[n * m]!, n);
    coarseOld.push(c);
    first.push(...c);
  }
  const iterates: State[][] = [first];
  const changes: Tolerance[] = [];
  if (settings.iterations === 0) return { iterates, changes, stoppedBy: 'iterations' };

  let current: SliceJob[] = [];
  for (let n = 0; n < slices; n++) current.push(submit(n, first[n * m]!, undefined));

  for (let k = 1; ; k++) {
    const prev = iterates[k - 1]!;
    const next: State[] = [x0];
    const coarseNew: State[][] = [];
    const upcoming: SliceJob[] = [current[0]!];
    const last = k >= settings.iterations || k >= slices;
    for (let n = 0; n < slices; n++) {
      const startNew = next[n * m]!;
      const startOld = prev[n * m]!;
      const fine = await current[n]!.result;
      if (sameBits(startNew, startOld)) {
        coarseNew.push(coarseOld[n]!);
        next.push(...fine.states);
      } else {
        const cNew = coarseSlice(startNew, n);
        coarseNew.push(cNew);
        for (let j = 0; j < m; j++) {
          const corrected = L.sum(cNew[j]!, L.difference(fine.states[j]!, coarseOld[n]![j]!));
          projectFeasible(corrected, L, ctx.projection);
          next.push(corrected);
        }
      }
      // Pipelining: iteration k+1's job for slice n+1 can start now.
      if (!last && n + 1 < slices) upcoming.push(submit(n + 1, next[(n + 1) * m]!, current[n + 1]));
    }
    iterates.push(next);
    coarseOld = coarseNew;
    const change = largestChange(L, next, prev);
    changes.push(change);
    if (k >= slices) return { iterates, changes, stoppedBy: 'exact' };
    if (
      settings.tolerance &&
      change.translation < settings.tolerance.translation &&
      change.rotation < settings.tolerance.rotation
    ) {
      return { iterates, changes, stoppedBy: 'tolerance' };
    }
    if (k >= settings.iterations) return { iterates, changes, stoppedBy: 'iterations' };
    current = upcoming;
  }
}

/**
 * Iteration 0 of every sequence at once: control j of all sequences in one stepBatch call.
 * Returns sweeps[r][n]: the coarse states of sequence r over slice n.
 */
function batchedCoarseSweep(
  coarse: CoarsePropagator,
  settings: PararealSettings,
  starts: readonly State[],
  controls: readonly Control[][],
  timing: PredictionTiming,
): State[][][] {
  const c0 = monotonicSeconds();
  const m = settings.controlsPerSlice;
  const sweeps: State[][][] = controls.map(() => []);
  const current = starts.slice();
  const longest = Math.max(0, ...controls.map((c) => c.length));
  for (let j = 0; j < longest; j++) {
    const active = controls.flatMap((c, r) => (j < c.length ? [r] : []));
    const next = coarse.stepBatch!(
      active.map((r) => current[r]!),
      active.map((r) => controls[r]![j]!),
      settings.dt,
    );
    active.forEach((r, k) => {
      current[r] = next[k]!;
      (sweeps[r]![Math.floor(j / m)] ??= []).push(next[k]!);
    });
  }
  timing.coarseTime += monotonicSeconds() - c0;
  return sweeps;
}

function largestChange(L: StateLayout, a: State[], b: State[]): Tolerance {
  let translation = 0;
  let rotation = 0;
  for (let n = 0; n < a.length; n++) {
    const c = L.maxSliderPoseChange(a[n]!, b[n]!);
    translation = Math.max(translation, c.translation);
    rotation = Math.max(rotation, c.rotation);
  }
  return { translation, rotation };
}

function sameBits(a: State, b: State): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
