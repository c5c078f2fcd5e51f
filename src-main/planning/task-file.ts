/**
 * The task file: which scene, which cost terms with which weights, the planner's settings, the
 * simulated execution world's noise, and how experiments sample initial states. SI units.
 * Shipped tasks live in resources/tasks/; the scene path is relative to the task file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { loadSceneFile } from '../common/config-files';
import { problemsOf } from '../contract/scene-file';
import { plannerKindSchema } from '../contract/planner-settings';
import { DEFAULT_PREDICTION, fineModelSettingsSchema, type Scene } from '../contract/scene';
import { DEFAULT_REPLAN_TOLERANCE } from './mpc-loop';
import { costTermSchema } from './costs/cost-terms';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be greater than 0');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');
const count = (min: number) => z.number().int('must be a whole number').min(min, `must be ${min} or more`);

export const updateRuleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('greedy') }).strict(),
  z.object({ kind: z.literal('weighted'), lambda: positive }).strict(),
]);

export const optimizerSettingsSchema = z
  .object({
    rollouts: count(1).default(20),
    explorationVariance: positive.default(1e-4).describe('(m/s)^2'),
    update: updateRuleSchema.default({ kind: 'greedy' }),
    maxIterations: count(0).default(5),
    costThreshold: finite.default(0),
  })
  .strict();

export const tampcSettingsSchema = z
  .object({
    /** N: candidate sequences. */
    candidates: count(1).default(4),
    /** n_min / n_max: fewest and most controls of a candidate (fast and slow pushes). */
    minActions: count(1).default(1),
    maxActions: count(1).default(4),
    /** Q: stochastic samples per first action. */
    samples: count(1).default(10),
    /** t_rest: time the objects get to come to rest after each action (s). */
    restTime: nonNegative.default(0.5),
    /**
     * I_max of each candidate's optimization (Alg. 3 = Alg. 4 per candidate); default the
     * optimizer's maxIterations. TAMPC optimizes N sequences of up to n_max controls where MPC
     * optimizes one of `horizon`, so the WAFR tasks give it one iteration to plan within about a
     * control duration on two workers (docs/planner.md).
     */
    iterations: count(0).optional(),
  })
  .strict()
  .refine((t) => t.minActions <= t.maxActions, 'minActions must not exceed maxActions');

/** The fine model the planner predicts with (contract/scene.ts, shared with the console's settings). */
export { DEFAULT_PREDICTION };

export const taskPlannerSchema = z
  .object({
    kind: plannerKindSchema.default('mpc'),
    /** Controls per planned sequence (also the number of Parareal slices). */
    horizon: count(1).default(4),
    controlDuration: positive.default(1).describe('s'),
    /** Speed of the straight-line initial sequence towards the goal (the quasi-static speed). */
    initialSpeed: positive.default(0.02).describe('m/s'),
    /**
     * Speed of MPC's full-speed fresh candidates (mpc.ts; beyond the papers), at most the scene's
     * pusher speed limit, which is the default. The WAFR tasks keep MPC's at the reference 0.1 m/s
     * while their scenes allow TAMPC's one-action pushes (docs/planner.md).
     */
    fastSpeed: positive.optional().describe('m/s'),
    optimizer: optimizerSettingsSchema.prefault({}),
    /** Executed actions before the run ends unsuccessfully. */
    maxActions: count(1).default(20),
    /** Task time (planning + execution) before the run ends unsuccessfully (s). */
    timeLimit: positive.default(3600),
    tampc: tampcSettingsSchema.prefault({}),
    prediction: fineModelSettingsSchema.prefault(DEFAULT_PREDICTION),
    /**
     * synchronous: the arm holds still while each step is planned; asynchronous: the next step is
     * planned while this one executes, from its predicted end state (mpc-loop.ts).
     */
    mode: z.enum(['synchronous', 'asynchronous']).default('synchronous'),
    /**
     * How far an observation may be from the state a plan started from before the loop plans again
     * from the observation (default: DEFAULT_REPLAN_TOLERANCE).
     */
    replanTolerance: z
      .object({ translation: positive.describe('m'), rotation: positive.describe('rad') })
      .strict()
      .prefault(DEFAULT_REPLAN_TOLERANCE),
  })
  .strict()
  .superRefine((p, ctx) => {
    const steps = p.controlDuration / p.prediction.timestep;
    if (Math.abs(steps - Math.round(steps)) > 1e-9)
      ctx.addIssue({
        code: 'custom',
        path: ['prediction', 'timestep'],
        message: `must divide the control duration (${p.controlDuration} s) into whole steps`,
      });
  });

export const noiseSchema = z.discriminatedUnion('kind', [
  /** ISRR 2019 Eq. 14: N(0, variance) on every velocity, every MuJoCo step. */
  z.object({ kind: z.literal('constant'), variance: nonNegative }).strict(),
  /** WAFR 2018 Eq. 9-10: per-step standard deviation b * |u| (m/s, b dimensionless; see execution-world.ts). */
  z.object({ kind: z.literal('action-proportional'), slope: nonNegative }).strict(),
]);

/** [low, high] of a uniform draw. */
const rangeOf = (value: typeof finite) =>
  z.tuple([value, value]).refine(([lo, hi]) => lo <= hi, 'the lower bound must not exceed the upper one');

/**
 * WAFR 2018 Sec. 7.1 footnote 1: the uniform ranges of the pushed object of every environment.
 * Box x and y extents are drawn independently from one range (full extents, not half-sizes).
 */
export const WAFR_OBJECT_RANGES = {
  boxSize: [0.05, 0.075],
  boxHeight: [0.036, 0.05],
  cylinderRadius: [0.04, 0.07],
  cylinderHeight: [0.04, 0.05],
  mass: [0.2, 0.8],
  friction: [0.2, 0.6],
} as const satisfies Record<string, readonly [number, number]>;

const r = (range: readonly [number, number]): [number, number] => [range[0], range[1]];

/**
 * The goal object drawn per environment (WAFR 2018 Sec. 7.1 items 1-2): its shape, uniformly from
 * `shapes`, then its dimensions, mass and friction coefficient, each uniform in its range
 * (defaults: the paper's footnote 1). The sampled scene must still pass the scene schema.
 */
export const objectSamplingSchema = z
  .object({
    shapes: z
      .array(z.enum(['box', 'cylinder']))
      .min(1)
      .default(['box', 'cylinder']),
    boxSize: rangeOf(positive).default(r(WAFR_OBJECT_RANGES.boxSize)).describe('m, each of x and y'),
    boxHeight: rangeOf(positive).default(r(WAFR_OBJECT_RANGES.boxHeight)).describe('m'),
    cylinderRadius: rangeOf(positive).default(r(WAFR_OBJECT_RANGES.cylinderRadius)).describe('m'),
    cylinderHeight: rangeOf(positive).default(r(WAFR_OBJECT_RANGES.cylinderHeight)).describe('m'),
    mass: rangeOf(positive).default(r(WAFR_OBJECT_RANGES.mass)).describe('kg'),
    friction: rangeOf(nonNegative).default(r(WAFR_OBJECT_RANGES.friction)),
  })
  .strict();

export const samplingSchema = z.discriminatedUnion('kind', [
  /** ISRR 2019: pusher and slider y uniform in [-halfRange, halfRange] (the straight push hits the obstacle). */
  z.object({ kind: z.literal('isrr-obstacle'), halfRange: positive.default(0.025) }).strict(),
  /**
   * WAFR 2018 Sec. 7.1: the object's position Gaussian about the lower end of the table (`offset`
   * from the edge on the long axis, the centre line across), and with `object` its shape, size,
   * mass and friction drawn per environment; without `object` the scene's own object is kept.
   *
   * `std` is a standard deviation in metres, on each coordinate. The paper's footnote 2 says "a
   * variance of 0.01 m"; a variance would be in m^2, and read as 0.01 m^2 (a 0.1 m standard
   * deviation) the object would start off the 0.16 m strip in four environments out of ten and
   * off the lower end in one in six, never "at the lower end of the table".
   */
  z
    .object({
      kind: z.literal('wafr-lower-end'),
      offset: positive.default(0.1),
      std: nonNegative.default(0.01),
      object: objectSamplingSchema.optional(),
    })
    .strict(),
  /** CVS 2020: every slider's position jittered uniformly by up to this much (m), no overlaps. */
  z.object({ kind: z.literal('jitter'), halfRange: positive.default(0.02) }).strict(),
]);

export const taskSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    scene: z.string().min(1).describe('scene file, relative to the task file'),
    costs: z.array(costTermSchema).min(1),
    planner: taskPlannerSchema.prefault({}),
    execution: z.object({ noise: noiseSchema }).strict(),
    sampling: samplingSchema,
  })
  .strict();

export type Task = z.infer<typeof taskSchema>;
export type TaskPlanner = z.infer<typeof taskPlannerSchema>;
export type NoiseModel = z.infer<typeof noiseSchema>;
export type Sampling = z.infer<typeof samplingSchema>;
export type ObjectSampling = z.infer<typeof objectSamplingSchema>;

export class TaskFileError extends Error {
  override name = 'TaskFileError';
}

export interface LoadedTask {
  task: Task;
  scene: Scene;
  file: string;
}

export function parseTask(value: unknown, file = '<task>'): Task {
  const r = taskSchema.safeParse(value);
  if (!r.success) {
    const lines = problemsOf(r.error).map((p) => `  ${p.path || '(root)'}: ${p.message}`);
    throw new TaskFileError(`${file}: invalid task\n${lines.join('\n')}`);
  }
  return r.data;
}

export function loadTaskFile(file: string): LoadedTask {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new TaskFileError(`${file}: ${(err as Error).message}`);
  }
  const task = parseTask(json, file);
  const scene = loadSceneFile(path.resolve(path.dirname(file), task.scene));
  return { task, scene, file };
}
