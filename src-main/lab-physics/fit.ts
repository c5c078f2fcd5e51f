/**
 * `physics fit`: the scene's physical parameters fitted to session logs by minimising the fine
 * model's multi-step prediction error (replay-windows.ts) with NLopt's derivative-free BOBYQA
 * (optimizer-thread.ts), each evaluation replayed on the fine workers.
 *
 * Parameters are searched as z in [-1, 1]: object mass, pusher-object friction and object-table
 * friction as multipliers 4^z of the scene's values (a quarter to four times), motion-capture
 * latency as 50 ms * (z + 1). MuJoCo gives a contact the larger of its two geoms' coefficients, so
 * the pusher-object multiplier scales the pusher's and the objects' coefficients alike (their
 * contact's is the larger of the two, scaled) and the object-table one the table's (object-table
 * contacts take the table's while it is the larger, as in every scene here). The objective is the mean square of the pose residuals, positions in mm and yaw
 * in degrees. At the minimum the residuals' Jacobian (central differences) gives the curvature
 * J'J: its eigen-directions are the combinations the logs determine (steep) or leave open (flat),
 * and s^2 (J'J)^-1 each parameter's 1-sigma uncertainty. Residuals of one run are correlated (and
 * multi-step windows overlap), so that counts too many independent samples: the cluster-robust
 * (sandwich) covariance counts each run as one, and the larger of the two is taken; with a few runs
 * it is itself uncertain, and `bootstrap` refits on runs drawn with replacement for a third view.
 */
import { pusherFriction } from '#contract/end-effector/pusher';
import { matrixProduct, spectralInverse, symmetricEigen } from '../common/eigen';
import type { Pusher, Scene } from '#contract/scene';
import { Rng } from '../common/rng';
import { summarise, type ErrorSummary } from './check';
import type { LoggedPushes } from './executed-pushes';
import { FITTABLE_MEANING, type Fittable } from '#contract/physics-profile';
import type { Replay } from './prediction-error';
import { minimise, type Algorithm } from './optimizer-thread';
import { replayErrors, type ControlError } from './replay-windows';

/** Multipliers span 4^-1 .. 4^1 of the scene's value. */
const MULTIPLIER_BASE = 4;
/** Latency spans 0 .. 2 * LATENCY_HALF_SPAN s. */
const LATENCY_HALF_SPAN = 0.05;
/** Residual scales: 1 mm of position weighs as 1 degree of yaw. */
const POSITION_SCALE = 0.001;
const YAW_SCALE = Math.PI / 180;
/** A parameter is identifiable when its 1-sigma uncertainty is below this (relative; latency: of 50 ms). */
export const IDENTIFIABLE_SIGMA = 0.075;
/**
 * Parameters these logs cannot determine whatever the curvature says. Mass: the pusher moves as
 * the arm is told, so every force on an object (its friction on the table and on the pusher)
 * scales with its weight, as does its inertia: its motion does not depend on its mass. Latency:
 * every observed state is read with the table at rest, where a delay changes no reading. What
 * curvature the replay's error still shows along them comes from the model's own approximations
 * (soft contacts, the replay's pieces, the edges of a rest) and a fit along it finds values that
 * make up for those, not the lab's (docs/physics-fit.md, "On the virtual lab": a 10 ms late motion
 * capture is fitted far from 10 ms, and a 1.6 times heavier object at about the scene's mass).
 */
const NOT_IDENTIFIABLE_BY_PUSHES: ReadonlySet<Fittable> = new Set(['mass', 'latency']);
/**
 * A direction this much less curved than the steepest is flat whatever the residuals' size: a fit
 * that matches the logs exactly leaves no residual to scale an uncertainty with.
 */
const FLAT_CURVATURE = 1e-6;
/** Central-difference step in z for the curvature. */
const JACOBIAN_STEP = 0.05;

/** The physics a point z stands for. */
export interface PhysicsPoint {
  /** Multipliers of the scene's values (1: unchanged). */
  mass: number;
  friction: number;
  table: number;
  /** s */
  latency: number;
}

export const SCENE_PHYSICS: PhysicsPoint = { mass: 1, friction: 1, table: 1, latency: 0 };

export function pointOf(parameters: readonly Fittable[], z: readonly number[]): PhysicsPoint {
  const p = { ...SCENE_PHYSICS };
  parameters.forEach((name, i) => {
    if (name === 'latency') p.latency = LATENCY_HALF_SPAN * (z[i]! + 1);
    else p[name] = MULTIPLIER_BASE ** z[i]!;
  });
  return p;
}

function zOf(name: Fittable, p: PhysicsPoint): number {
  return name === 'latency'
    ? p.latency / LATENCY_HALF_SPAN - 1
    : Math.log(p[name]) / Math.log(MULTIPLIER_BASE);
}

/** A pusher's friction coefficient under a point's pusher-object multiplier. */
export function fittedPusherFriction(pusher: Pusher, p: PhysicsPoint): number {
  return pusherFriction(pusher) * p.friction;
}

/** The scene with a point's multipliers applied. */
export function sceneWith(scene: Scene, p: PhysicsPoint): Scene {
  return {
    ...scene,
    table: { ...scene.table, friction: scene.table.friction * p.table },
    sliders: scene.sliders.map((s) => ({ ...s, mass: s.mass * p.mass, friction: s.friction * p.friction })),
    ...(scene.pusher ? { pusher: { ...scene.pusher, friction: fittedPusherFriction(scene.pusher, p) } } : {}),
  };
}

export interface FitOptions {
  parameters: readonly Fittable[];
  /** Controls per replay window (multi-step error). */
  horizon: number;
  maxEvaluations: number;
  algorithm?: Algorithm;
  /** Refits on runs drawn with replacement for the uncertainty (0: curvature only). */
  bootstrap?: number;
  seed?: number;
  /** Told after each evaluation. */
  progress?: (done: number, total: number, best: number) => void;
  signal?: AbortSignal;
}

export interface Estimate {
  parameter: Fittable;
  /** Multiplier of the scene's value, or latency in s. */
  value: number;
  /** 1-sigma interval. */
  low: number;
  high: number;
  identifiable: boolean;
}

export interface Direction {
  /** Unit vector over the fitted parameters' z. */
  vector: number[];
  /** 1-sigma uncertainty along it, in z units. */
  sigma: number;
  /** The combination in words: a product of powers of the multipliers. */
  combination: string;
  /** Its curvature against the steepest direction's: near 0, the objective does not change along it at all. */
  relativeCurvature: number;
}

export interface FitResult {
  point: PhysicsPoint;
  estimates: Estimate[];
  directions: Direction[];
  warnings: string[];
  /** Mean square scaled residual at the scene's physics and at the fit. */
  objective: { before: number; after: number };
  training: { before: ErrorSummary; after: ErrorSummary };
  evaluations: number;
  /** The bootstrap fits' points, when asked for. */
  bootstrap: PhysicsPoint[];
}

/** Residuals of every control of every window, scaled; and the errors for summaries. */
async function evaluate(
  replay: Replay,
  model: Scene,
  runs: readonly LoggedPushes[],
  p: PhysicsPoint,
  o: { horizon: number; signal?: AbortSignal },
): Promise<{ residuals: number[]; errors: ControlError[] }> {
  const errors = await replayErrors(replay, sceneWith(model, p), runs, {
    horizon: o.horizon,
    latency: p.latency,
    contactOnly: true,
    signal: o.signal,
  });
  const residuals = errors.flatMap((e) =>
    e.residual.map((r, i) => r / (i % 3 === 2 ? YAW_SCALE : POSITION_SCALE)),
  );
  return { residuals, errors };
}

const meanSquare = (r: readonly number[]): number => r.reduce((s, v) => s + v * v, 0) / Math.max(1, r.length);

/** The multi-step errors of some runs with a point's physics, summarised (m, rad). */
export async function multiStepError(
  replay: Replay,
  model: Scene,
  runs: readonly LoggedPushes[],
  p: PhysicsPoint,
  o: { horizon: number; signal?: AbortSignal },
): Promise<ErrorSummary> {
  const { errors } = await evaluate(replay, model, runs, p, o);
  return summarise(errors.flatMap((e) => e.objects));
}

/** Fits the parameters to the runs (all of them: the caller holds out runs for validation). */
export async function fitPhysics(
  replay: Replay,
  model: Scene,
  runs: readonly LoggedPushes[],
  o: FitOptions,
): Promise<FitResult> {
  const names = [...o.parameters];
  if (names.length === 0) throw new Error('nothing to fit: name at least one parameter');
  const d = names.length;
  const bootstrapFits = o.bootstrap ?? 0;
  const jacobianEvaluations = 2 * d + 1;
  const total = o.maxEvaluations + Math.ceil(o.maxEvaluations / 2) * bootstrapFits + jacobianEvaluations + 1;
  let done = 0;
  let best = Infinity;
  const counted = async <T>(work: Promise<T>, value: (t: T) => number): Promise<T> => {
    const t = await work;
    best = Math.min(best, value(t));
    done++;
    o.progress?.(done, total, best);
    return t;
  };
  const objectiveOn = (subset: readonly LoggedPushes[]) => async (z: number[]) =>
    meanSquare(
      (await counted(evaluate(replay, model, subset, pointOf(names, z), o), (r) => meanSquare(r.residuals)))
        .residuals,
    );
  const start = names.map((n) => zOf(n, SCENE_PHYSICS));
  const before = await counted(evaluate(replay, model, runs, SCENE_PHYSICS, o), (r) =>
    meanSquare(r.residuals),
  );
  const problem = {
    algorithm: o.algorithm ?? 'LN_BOBYQA',
    x0: start,
    lower: names.map(() => -1),
    upper: names.map(() => 1),
    maxEvaluations: o.maxEvaluations,
    tolerance: 1e-4,
  } as const;
  const minimum = await minimise(problem, objectiveOn(runs));
  // NLopt may end on its last trial rather than its best: keep the better of the start and it.
  const zBest = minimum.value <= meanSquare(before.residuals) ? minimum.x : start;
  const point = pointOf(names, zBest);
  const at = await evaluate(replay, model, runs, point, o);

  // Curvature at the minimum: the residuals' Jacobian by central differences, inside the bounds.
  const columns: number[][] = [];
  for (let i = 0; i < d; i++) {
    const up = [...zBest];
    const down = [...zBest];
    up[i] = Math.min(1, zBest[i]! + JACOBIAN_STEP);
    down[i] = Math.max(-1, zBest[i]! - JACOBIAN_STEP);
    const [ru, rd] = await Promise.all([
      counted(evaluate(replay, model, runs, pointOf(names, up), o), (r) => meanSquare(r.residuals)),
      counted(evaluate(replay, model, runs, pointOf(names, down), o), (r) => meanSquare(r.residuals)),
    ]);
    columns.push(ru.residuals.map((r, k) => (r - rd.residuals[k]!) / (up[i]! - down[i]!)));
  }
  const m = at.residuals.length;
  const jtj = names.map((_, i) => names.map((_, j) => dot(columns[i]!, columns[j]!)));
  const s2 = (meanSquare(at.residuals) * m) / Math.max(1, m - d);
  const eigen = symmetricEigen(jtj);
  const values = eigen.values;
  // Each eigenvector as a row (symmetricEigen gives them as columns).
  const vectors = values.map((_, k) => eigen.vectors.map((row) => row[k]!));
  const floor = Math.max(...values) * 1e-12 || 1e-12;
  const inverse = spectralInverse(eigen, floor);
  // Covariance of z: s^2 (J'J)^-1.
  const cov = inverse.map((row) => row.map((v) => s2 * v));
  const robust = clusterRobustCovariance(
    columns,
    at.residuals,
    at.errors.flatMap((e) => e.residual.map(() => e.run)),
    inverse,
  );
  const directions: Direction[] = values.map((l, k) => ({
    vector: vectors[k]!,
    sigma: Math.sqrt(s2 / Math.max(l, floor)),
    combination: combinationOf(names, vectors[k]!),
    relativeCurvature: l / Math.max(...values),
  }));

  // Bootstrap over runs: refit on runs drawn with replacement, from the fit.
  const rng = new Rng(o.seed ?? 1);
  const bootstrap: PhysicsPoint[] = [];
  for (let b = 0; b < bootstrapFits; b++) {
    const sample = runs.map(() => runs[Math.floor(rng.uniform() * runs.length)]!);
    // From the fit, which a resample moves a little: half the budget finds its minimum.
    const refit = await minimise(
      { ...problem, x0: zBest, maxEvaluations: Math.ceil(o.maxEvaluations / 2) },
      objectiveOn(sample),
    );
    bootstrap.push(pointOf(names, refit.x));
  }

  const sigmaZ = names.map((n, i) => {
    const curvature = Math.max(Math.sqrt(cov[i]![i]!), robust ? Math.sqrt(robust[i]![i]!) : 0);
    if (bootstrap.length < 2) return curvature;
    const zs = bootstrap.map((p) => zOf(n, p));
    const mean = zs.reduce((s, v) => s + v, 0) / zs.length;
    const spread = Math.sqrt(zs.reduce((s, v) => s + (v - mean) ** 2, 0) / (zs.length - 1));
    return Math.max(curvature, spread);
  });
  const estimates: Estimate[] = names.map((n, i) => {
    const z = zBest[i]!;
    const value = n === 'latency' ? point.latency : point[n];
    const lo = pointOf([n], [z - sigmaZ[i]!]);
    const hi = pointOf([n], [z + sigmaZ[i]!]);
    const relative = n === 'latency' ? sigmaZ[i]! : Math.log(MULTIPLIER_BASE) * sigmaZ[i]!;
    return {
      parameter: n,
      value,
      low: n === 'latency' ? Math.max(0, lo.latency) : lo[n],
      high: n === 'latency' ? hi.latency : hi[n],
      identifiable: relative < IDENTIFIABLE_SIGMA && !NOT_IDENTIFIABLE_BY_PUSHES.has(n),
    };
  });
  return {
    point,
    estimates,
    directions,
    warnings: identifiabilityWarnings(names, estimates, directions),
    objective: { before: meanSquare(before.residuals), after: meanSquare(at.residuals) },
    training: {
      before: summarise(before.errors.flatMap((e) => e.objects)),
      after: summarise(at.errors.flatMap((e) => e.objects)),
    },
    evaluations: done,
    bootstrap,
  };
}

/**
 * The cluster-robust (sandwich) covariance of z, A^-1 B A^-1 with A = J'J and B the sum over runs
 * of (J_g' r_g)(J_g' r_g)' (times G / (G - 1) for G runs): the residuals of one run are correlated
 * (one object, overlapping windows, the same camera noise at a rest read twice), so it counts each
 * run as one sample where s^2 (J'J)^-1 counts every residual as one. Null for fewer than two runs,
 * where it says nothing (J'r vanishes at a minimum).
 */
function clusterRobustCovariance(
  columns: readonly (readonly number[])[],
  residuals: readonly number[],
  runOf: readonly number[],
  inverse: readonly (readonly number[])[],
): number[][] | null {
  const runs = [...new Set(runOf)];
  if (runs.length < 2) return null;
  const range = Array.from({ length: columns.length }, (_, i) => i);
  const scores = runs.map((g) =>
    range.map((i) => columns[i]!.reduce((s, c, k) => (runOf[k] === g ? s + c * residuals[k]! : s), 0)),
  );
  const correction = runs.length / (runs.length - 1);
  const meat = range.map((i) => range.map((j) => correction * scores.reduce((s, v) => s + v[i]! * v[j]!, 0)));
  return matrixProduct(matrixProduct(inverse, meat), inverse);
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A direction in z as a product of powers of the multipliers (latency as its own term). */
function combinationOf(names: readonly Fittable[], v: readonly number[]): string {
  const terms = names
    .map((n, i) => ({ n, c: v[i]! }))
    .filter((t) => Math.abs(t.c) >= 0.2)
    .map((t) => (t.n === 'latency' ? `latency (${t.c.toFixed(2)})` : `${t.n}^${t.c.toFixed(2)}`));
  return terms.join(' · ');
}

/**
 * Plain words for what the logs leave open: a single parameter they do not determine, and
 * parameters that trade off (a flat direction over two or more), with the combination they do.
 */
function identifiabilityWarnings(
  names: readonly Fittable[],
  estimates: readonly Estimate[],
  directions: readonly Direction[],
): string[] {
  const out: string[] = [];
  const isFlat = (dir: Direction): boolean =>
    Math.log(MULTIPLIER_BASE) * dir.sigma >= IDENTIFIABLE_SIGMA || dir.relativeCurvature < FLAT_CURVATURE;
  const flat = directions.filter(isFlat);
  const steep = directions.filter((dir) => !isFlat(dir));
  for (const dir of flat) {
    const involved = names.filter((_, i) => Math.abs(dir.vector[i]!) >= 0.3);
    if (involved.length >= 2) {
      const determined = steep
        .filter((s) => involved.some((n) => Math.abs(s.vector[names.indexOf(n)]!) >= 0.3))
        .map((s) => s.combination);
      out.push(
        `${involved.join(' and ')} trade off: the logs barely change along ${dir.combination}` +
          (determined.length > 0
            ? `; what they determine is ${determined.join(' and ')}`
            : '; they determine no combination of them either'),
      );
    }
  }
  for (const e of estimates) {
    if (e.identifiable) continue;
    const why =
      e.parameter === 'mass'
        ? ': a pusher that moves at the velocity it is told sees friction ratios, not mass (every force on the object scales with its weight)'
        : e.parameter === 'latency'
          ? ': the observed states are read with the arm and objects at rest, where a delay changes nothing'
          : '';
    out.push(`${e.parameter} (${FITTABLE_MEANING[e.parameter]}) is not determined by these logs${why}`);
  }
  return out;
}
