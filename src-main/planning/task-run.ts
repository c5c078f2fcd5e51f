/**
 * Wires one planner run together from a task: geometry and costs, the prediction model on the
 * worker pool, the planner the task asks for (MPC, TAMPC or UAMPC) and its seeded streams.
 * The experiment runner, the benchmark and (later) the console all build runs through here.
 */
import type { PredictionError } from './prediction-error';
import { controlLimits, endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { type Planner, type RestPredictor, type StochasticSampler } from './planner';
import { type PlannerStep } from '#contract/planner-events';
import type { CoarseModelKind } from '#contract/planner-settings';
import { layoutForScene } from '#contract/state';
import type { FinePool } from '../parareal/fine-pool';
import {
  assertModelFitsRobot,
  coarseModelled,
  createPredictor,
  type PredictionModel,
} from '../parareal/predictor';
import { resolveModel, type ModelRequest } from '../parareal/model-choice';
import { loadCoarseModel } from './coarse-models';
import { TrajectoryCost } from './costs/trajectory-cost';
import { noiseStd, processNoise } from './execution-world';
import { noiseDofs, stepCount } from '#physics/fine-model';
import { closeOnTarget } from './gripper-plans';
import { plannerOf } from './planners';
import { runMpc, type MpcLoopOptions } from './mpc-loop';
import type { Plant } from './plant';
import type { RunSummary } from '#contract/planner-events';
import type { OptimizerSettings } from './optimizer';
import { TaskGeometry } from './task-geometry';
import { deriveSeed, Rng } from '../common/rng';
import { predictorRollout } from './rollout';
import { restControl } from './control-space';
import { actionCap, type NoiseModel, type Task } from './task-file';

export interface TaskRunParts {
  geometry: TaskGeometry;
  cost: TrajectoryCost;
  planner: Planner;
  /** The prediction model the planner uses (`auto` resolved for the pool and the task). */
  model: PredictionModel;
  /** Release what the planner holds (nothing since TAMPC's samples run on the pool; kept for callers). */
  dispose(): void;
}

export function optimizerSettings(task: Task, scene: Scene): OptimizerSettings {
  const o = task.planner.optimizer;
  return {
    rollouts: o.rollouts,
    explorationVariance: o.explorationVariance,
    update: o.update,
    maxIterations: o.maxIterations,
    costThreshold: o.costThreshold,
    ...controlLimits(scene),
  };
}

/** Labels for a plan's iterates: Parareal 0..K, coarse 0, fine alone = exact (k = horizon). */
export function iterationLabeller(model: PredictionModel, horizon: number): (count: number) => number[] {
  return (count) => (model.kind === 'fine' ? [horizon] : Array.from({ length: count }, (_, k) => k));
}

/** ISRR 2019 Eq. 4 with a negligible coarse model: N slices in K iterations, N / K. */
export function theoreticalSpeedup(model: PredictionModel, horizon: number): number | null {
  return model.kind === 'parareal' && model.iterations > 0
    ? horizon / Math.min(model.iterations, horizon)
    : null;
}

/** What a task's planner is built from. */
export interface TaskRunSetup {
  task: Task;
  /** The task's scene (the worker pool compiles it once; start states come separately). */
  scene: Scene;
  pool: FinePool;
  model: ModelRequest;
  coarse?: CoarseModelKind;
  /** Seed of the planning side (exploration noise, TAMPC samples). */
  seed: number;
}

/**
 * The model a task plans with on `workers` fine workers: the request, or `auto` resolved for the
 * task's load (parareal/model-choice.ts), with auto's reason. A gripper plans with the fine model:
 * `auto` picks it, and the coarse models refuse it.
 */
export function planningModel(
  task: Task,
  scene: Scene,
  request: ModelRequest,
  workers: number,
): { model: PredictionModel; reason: string | null } {
  const tool = endEffectorOf(scene);
  if (!coarseModelled(tool) && request.kind === 'auto')
    return {
      model: { kind: 'fine' },
      reason: `auto: fine model (the ${tool.title} plans with the fine model)`,
    };
  const p = task.planner;
  return resolveModel(request, { workers, sequences: p.optimizer.rollouts, horizon: p.horizon });
}

export async function createTaskRun(o: TaskRunSetup): Promise<TaskRunParts> {
  const { task, scene } = o;
  const geometry = new TaskGeometry(scene);
  const cost = new TrajectoryCost(task.costs, geometry);
  const p = task.planner;
  const { model } = planningModel(task, scene, o.model, o.pool.size);
  assertModelFitsRobot(scene, model);
  // Planning predicts with its own fine-model settings; the world it plans for keeps the scene's.
  const predictionScene: Scene = { ...scene, fine: p.prediction };
  const predictor = createPredictor(predictionScene, o.pool, model, {
    dt: p.controlDuration,
    ...(coarseModelled(endEffectorOf(scene))
      ? { coarse: await loadCoarseModel(predictionScene, o.coarse ?? 'analytical') }
      : {}),
  });
  const rollout = predictorRollout(predictor);
  const rng = new Rng(deriveSeed(o.seed, 'planner'));
  const labels = iterationLabeller(model, p.horizon);
  const settings = optimizerSettings(task, scene);
  const planner = plannerOf(p.kind).create({
    task,
    scene,
    geometry,
    rollout,
    cost,
    rng,
    optimizer: settings,
    iterationLabels: labels,
    sampler: () => poolSampler(o.pool, predictionScene, task.execution.noise, scene.fine.timestep),
    settle: () => poolSettle(o.pool, predictionScene),
  });
  return { geometry, cost, planner, model, dispose: () => undefined };
}

/**
 * TAMPC's stochastic samples as noisy fine jobs on the worker pool (the prediction model's scene,
 * the execution world's noise model): every sample of a batch is queued at once, beside the
 * optimizers' rollouts, and each runs step for step as ExecutionWorld.reset(x0, seed) +
 * apply(u, dt) + apply([0, 0], rest) would: the noise is drawn here, from the same seeded stream
 * in the same order (processNoise). Never the execution world itself.
 *
 * The world takes a velocity kick every `worldTimestep`; the prediction model steps less often
 * (2 ms against 1 ms), so each of its kicks is scaled by sqrt(timestep / worldTimestep), which
 * keeps the kicks' variance per second, the spread they cause, the world's. Unscaled, the samples
 * showed 0.6 times the world's spread (1 s pushes at 0.1 and 0.2 m/s, 40 seeds), and fast pushes
 * looked safer to TAMPC than they are (docs/planner.md).
 */
export function poolSampler(
  pool: FinePool,
  scene: Scene,
  noise: NoiseModel,
  worldTimestep: number,
): StochasticSampler {
  const sceneKey = pool.registerScene(scene);
  const kickScale = Math.sqrt(scene.fine.timestep / worldTimestep);
  // Perturbed velocities per MuJoCo step: the robot's DOFs and each slider's vx, vy, omega.
  const dofs = noiseDofs(layoutForScene(scene));
  const speedScales = endEffectorOf(scene).speedScales;
  const restStd = kickScale * noiseStd(noise, [0, 0], worldTimestep);
  return async (requests) => {
    const results = await Promise.all(
      requests.map((r) => {
        const rng = new Rng(r.seed);
        const controlNoise = processNoise(
          rng,
          kickScale * noiseStd(noise, r.u, worldTimestep, speedScales),
          stepCount(r.dt, scene.fine.timestep),
          dofs,
        );
        const restNoise =
          r.restTime > 0
            ? processNoise(rng, restStd, stepCount(r.restTime, scene.fine.timestep), dofs)
            : new Float64Array(0);
        return pool.run({
          sceneKey,
          x: r.x0,
          controls: [[...r.u]],
          dt: r.dt,
          noise: { controlNoise, rest: r.restTime, restNoise },
        });
      }),
    );
    return results.map((res) => res.states[res.states.length - 1]!);
  };
}

/**
 * A plan's rest as the prediction model sees it: one noise-free fine job on the pool, the arm at
 * rest for restTime. Asynchronous MPC plans the next step from its end (Planner.settle).
 */
export function poolSettle(pool: FinePool, scene: Scene): RestPredictor {
  const sceneKey = pool.registerScene(scene);
  const rest = restControl(layoutForScene(scene).robotDofs);
  return async (x, restTime, signal) => {
    const r = await pool.run({ sceneKey, x, controls: [[...rest]], dt: restTime }, signal);
    return r.states[r.states.length - 1]!;
  };
}

/** The loop's mode and tolerances from the task's planner settings. */
export function loopMode(task: Task): Pick<MpcLoopOptions, 'asynchronous' | 'confirmTolerance'> {
  const p = task.planner;
  return {
    asynchronous: p.loopMode === 'asynchronous' ? { tolerance: p.replanTolerance } : null,
    confirmTolerance: p.replanTolerance,
  };
}

/** One MPC run of a task on a plant (a simulated execution world), with the task's own limits. */
export async function runTaskOn(
  o: TaskRunSetup & {
    plant: Plant;
    /** Told of every executed step (the run's recorder, when it has one). */
    onStep?: (step: PlannerStep) => void;
    /** Told of each planned control's prediction error (the run's recorder, when it has one). */
    onPredictionError?: (e: PredictionError) => void;
    signal?: AbortSignal;
  },
): Promise<RunSummary> {
  const p = o.task.planner;
  const parts = await createTaskRun(o);
  try {
    return await runMpc({
      plant: o.plant,
      planner: parts.planner,
      geometry: parts.geometry,
      controlDuration: p.controlDuration,
      maxActions: actionCap(p),
      timeLimit: p.timeLimit,
      workers: o.pool.size,
      theoreticalSpeedup: theoreticalSpeedup(parts.model, p.horizon),
      ...loopMode(o.task),
      ...(parts.geometry.graspGoal
        ? { reflex: closeOnTarget(parts.geometry, controlLimits(o.scene), p.controlDuration) }
        : {}),
      ...(o.onStep ? { onStep: o.onStep } : {}),
      ...(o.onPredictionError ? { onPredictionError: o.onPredictionError } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } finally {
    parts.dispose();
  }
}
