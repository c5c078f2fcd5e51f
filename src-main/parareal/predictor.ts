/**
 * One interface for every prediction model the planner and the CLI can choose: the coarse model
 * alone, the fine model alone (each sequence serially on one worker, sequences in parallel), or
 * Parareal combining the two. All of them take a batch of control sequences at once so the
 * worker pool stays busy.
 */
import { monotonicSeconds } from '../common/clock';
import type { EndEffector } from '#contract/end-effector/end-effector';
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { State } from '#contract/state';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { projectionGeometry } from '#physics/projection';
import type { FinePool } from './fine-pool';
import {
  addFineWork,
  noFineWork,
  parareal,
  realWorldSpread,
  type CoarsePropagator,
  type PararealResult,
  type PredictionRequest,
  type PredictionTiming,
} from './parareal';
import type { Tolerance } from '#contract/state';

/**
 * A concrete prediction model, as a run predicts with it: what a ModelRequest
 * (parareal/model-choice.ts) resolves to.
 */
export type PredictionModel =
  | { kind: 'coarse' }
  | { kind: 'fine' }
  | { kind: 'parareal'; iterations: number; tolerance: Tolerance | null; controlsPerSlice: number };

export interface Predictor {
  readonly model: PredictionModel;
  predict(request: PredictionRequest): Promise<PararealResult>;
}

/** Most iterations of the adaptive spelling: as many as the slices of a 4-control horizon (then exact). */
const ADAPTIVE_MAX_ITERATIONS = 4;

/**
 * Parses "coarse", "fine", "parareal", "parareal:2" and "parareal:adaptive" (iterate until the
 * iterates change by less than the real-world pushing spread; the CLI's and experiment runner's
 * spelling).
 */
export function parsePredictionModel(spec: string, tolerance: Tolerance | null = null): PredictionModel {
  const [kind, arg] = spec.split(':');
  if (kind === 'coarse' && arg === undefined) return { kind: 'coarse' };
  if (kind === 'fine' && arg === undefined) return { kind: 'fine' };
  if (kind === 'parareal' && arg === 'adaptive')
    return {
      kind: 'parareal',
      iterations: ADAPTIVE_MAX_ITERATIONS,
      tolerance: tolerance ?? realWorldSpread,
      controlsPerSlice: 1,
    };
  if (kind === 'parareal') {
    const iterations = arg === undefined ? 2 : Number(arg);
    if (!Number.isInteger(iterations) || iterations < 0)
      throw new Error(`"${spec}": iterations must be a whole number`);
    return { kind: 'parareal', iterations, tolerance, controlsPerSlice: 1 };
  }
  throw new Error(
    `unknown prediction model "${spec}" (expected coarse, fine, parareal[:K] or parareal:adaptive)`,
  );
}

/** The model in parsePredictionModel's spelling (how runs, logs and reports name it). */
export function predictionModelSpec(model: PredictionModel): string {
  if (model.kind !== 'parareal') return model.kind;
  return model.tolerance ? 'parareal:adaptive' : `parareal:${model.iterations}`;
}

export function createPredictor(
  scene: Scene,
  pool: FinePool,
  model: PredictionModel,
  /** coarse: a ready coarse model (planning/coarse-models.ts loads one); default analytical. */
  options: { dt: number; coarse?: CoarsePropagator },
): Predictor {
  assertModelFitsRobot(scene, model);
  const sceneKey = pool.registerScene(scene);
  const dt = options.dt;
  if (model.kind === 'fine') return { model, predict: (request) => fineOnly(sceneKey, pool, dt, request) };
  const coarse = options.coarse ?? new AnalyticalCoarseModel(scene);
  const ctx = { sceneKey, coarse, fine: pool, projection: projectionGeometry(scene) };
  return {
    model,
    predict: async (request) => {
      if (model.kind === 'parareal') {
        return parareal(
          ctx,
          {
            iterations: model.iterations,
            tolerance: model.tolerance,
            controlsPerSlice: model.controlsPerSlice,
            dt,
          },
          request,
        );
      }
      // The coarse model alone is Parareal's K = 0 end (the fine model alone, one slice with K = 1, is fineOnly).
      return parareal(ctx, { iterations: 0, tolerance: null, controlsPerSlice: 1, dt }, request);
    },
  };
}

/**
 * The coarse models (the analytical ISRR 2019 Eq. 6-9 and the learned CVS 2020 one) model a
 * cylindrical pusher: a tool with a disc radius (contract/end-effector).
 */
export function coarseModelled(tool: EndEffector): boolean {
  return tool.discRadius !== undefined;
}

/** A scene whose tool the coarse models do not model (a gripper's) predicts with the fine model alone. */
export function assertModelFitsRobot(scene: ToolEntries & { name: string }, model: { kind: string }): void {
  const tool = endEffectorOf(scene);
  if (!coarseModelled(tool) && model.kind !== 'fine')
    throw new Error(
      `scene "${scene.name}": its robot is the ${tool.title}, which the coarse models (analytical, learned) and so Parareal do not model; choose the fine model, not ${model.kind}`,
    );
}

async function fineOnly(
  sceneKey: string,
  pool: FinePool,
  dt: number,
  request: PredictionRequest,
): Promise<PararealResult> {
  const t0 = monotonicSeconds();
  const starts = Array.isArray(request.x0) ? request.x0 : request.controls.map(() => request.x0 as State);
  const results = await Promise.all(
    request.controls.map((controls, r) =>
      pool.run({ sceneKey, x: starts[r]!, controls: controls.map((u) => [...u]), dt }, request.signal),
    ),
  );
  const wallTime = monotonicSeconds() - t0;
  const fineJobTimes = results.map((r) => r.seconds);
  const timing: PredictionTiming = {
    wallTime,
    coarseTime: 0,
    fineJobTimes,
    fineWork: results.reduce(addFineWork, noFineWork()),
    fineJobs: results.length,
    fineJobsReused: 0,
    overheadTime: Math.max(0, wallTime - fineJobTimes.reduce((a, b) => a + b, 0) / pool.size),
  };
  return {
    sequences: results.map((r, i) => ({
      iterates: [[starts[i]!, ...r.states]],
      changes: [],
      stoppedBy: 'exact' as const,
    })),
    timing,
  };
}

export { realWorldSpread };
