/**
 * The task file: which scene, which cost terms with which weights, the planner's settings, the
 * simulated execution world's noise, and how experiments sample initial states. SI units.
 * Shipped tasks live in resources/tasks/; the scene path is relative to the task file.
 */
import path from 'node:path';
import { z } from 'zod';
import { loadSceneFile } from '../common/config-files';
import { endEffectorOf } from '#contract/end-effector/registry';
import { problemsOf } from '#contract/scene-file';
import { loopModeSchema, plannerKindSchema } from '#contract/planner-settings';
import { MAX_ACTIONS, MAX_CONTROL_DURATION, MAX_HORIZON, SCENE_LIMITS } from '#contract/safety-limits';
import { DEFAULT_PREDICTION, fineModelSettingsSchema, pointSchema, type Scene } from '#contract/scene';
import { tableRegion } from '#contract/table-region';
import { DEFAULT_REPLAN_TOLERANCE } from './replan-tolerance';
import { costTermSchema } from './costs/cost-terms';
import { readStoredJson } from '../common/stored-json';

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
    /**
     * nu of every control input ((m/s)^2 on the pusher's velocities), or one per input: a gripper
     * takes [vx, vy, yaw rate, opening speed] in (m/s)^2, (rad/s)^2, (m/s)^2 (checkTaskFitsScene).
     */
    explorationVariance: z
      .union([positive, z.array(positive).min(2, 'needs one variance per control input').max(4)])
      .default(1e-4),
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
    horizon: count(1).max(MAX_HORIZON, `must be at most ${MAX_HORIZON}`).default(4),
    controlDuration: positive
      .refine((v) => v <= MAX_CONTROL_DURATION, `must be at most ${MAX_CONTROL_DURATION} s`)
      .default(1)
      .describe('s'),
    /** Speed of the straight-line initial sequence towards the goal (the quasi-static speed). */
    initialSpeed: positive.default(0.02).describe('m/s'),
    /**
     * Speed of MPC's full-speed fresh candidates (mpc.ts; beyond the papers), at most the scene's
     * pusher speed limit, which is the default. The WAFR tasks keep MPC's at the reference 0.1 m/s
     * while their scenes allow TAMPC's one-action pushes (docs/planner.md).
     */
    fastSpeed: positive.optional().describe('m/s'),
    optimizer: optimizerSettingsSchema.prefault({}),
    /**
     * Executed actions before the run ends unsuccessfully (not TAMPC's n_max, tampc.maxActions);
     * null: no action cap, the time limit alone ends the run (WAFR 2018 sets only 3 minutes).
     */
    maxExecutedActions: count(1).max(MAX_ACTIONS, `must be at most ${MAX_ACTIONS}`).nullable().default(20),
    /** Task time (planning + execution) before the run ends unsuccessfully (s). */
    timeLimit: positive.default(3600),
    tampc: tampcSettingsSchema.prefault({}),
    prediction: fineModelSettingsSchema.prefault(DEFAULT_PREDICTION),
    /**
     * synchronous: the arm holds still while each step is planned; asynchronous: the next step is
     * planned while this one executes, from its predicted end state (mpc-loop.ts).
     */
    loopMode: loopModeSchema.default('synchronous'),
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
    const whole = (seconds: number) => {
      const steps = seconds / p.prediction.timestep;
      return Math.abs(steps - Math.round(steps)) <= 1e-9;
    };
    // TAMPC's samples rest on the prediction model too: a step that does not fit the rest is found
    // here, not by the first plan's throw. One problem per field, the control's first.
    const problem = !whole(p.controlDuration)
      ? `must divide the control duration (${p.controlDuration} s) into whole steps`
      : !whole(p.tampc.restTime)
        ? `must divide TAMPC's rest time (${p.tampc.restTime} s) into whole steps`
        : null;
    if (problem) ctx.addIssue({ code: 'custom', path: ['prediction', 'timestep'], message: problem });
  });

export const noiseSchema = z.discriminatedUnion('kind', [
  /** ISRR 2019 Eq. 14: N(0, variance) on every velocity, every MuJoCo step. */
  z.object({ kind: z.literal('constant'), variance: nonNegative }).strict(),
  /**
   * WAFR 2018 Eq. 9-10, beta(u) = b * |u|, read (execution-world.ts, docs/noise.md) as the
   * per-step standard deviation (`std`, the default), as the variance of each simulation step's
   * kick (`variance-per-step`, the papers' words), or as the kicks' variance per second of
   * simulated time (`variance-per-second`: per-step variance b * |u| * timestep).
   */
  z
    .object({
      kind: z.literal('action-proportional'),
      slope: nonNegative,
      reading: z.enum(['std', 'variance-per-step', 'variance-per-second']).optional(),
    })
    .strict(),
]);

/** [low, high] of a uniform draw. */
const rangeOf = (value: typeof finite) =>
  z.tuple([value, value]).refine(([lo, hi]) => lo <= hi, 'the lower bound must not exceed the upper one');

/** An axis-aligned rectangle of the table frame (m) that a position is drawn from uniformly. */
const rectangleSchema = z.object({ x: rangeOf(finite), y: rangeOf(finite) }).strict();

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

/** What the WAFR start samplers share: the start's standard deviation (m) and the object ranges. */
const wafrDraw = {
  std: nonNegative.default(0.01),
  object: objectSamplingSchema.optional(),
};

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
  z.object({ kind: z.literal('wafr-lower-end'), offset: positive.default(0.1), ...wafrDraw }).strict(),
  /**
   * WAFR 2018 Sec. 7.1 about a named point: as wafr-lower-end, but the start is Gaussian about
   * `start` (table frame, m), for tables whose lower end is not on the x axis (the L-shaped table
   * of Fig. 6). Objects are still pushed along +x from the start: the pusher begins behind them.
   */
  z.object({ kind: z.literal('wafr-point'), start: pointSchema, ...wafrDraw }).strict(),
  /** CVS 2020: every slider's position jittered uniformly by up to this much (m), no overlaps. */
  z.object({ kind: z.literal('jitter'), halfRange: positive.default(0.02) }).strict(),
  /**
   * CVS 2020 Sec. 5 with layouts drawn afresh: the goal object's centre uniform in `target`, the
   * pusher just behind it on the line to the goal, every other slider's centre uniform in
   * `others` (table frame, m), each body `clearance` (m) from those placed before it and every
   * other slider wholly outside the goal region by as much (inside it the run has already failed).
   */
  z
    .object({
      kind: z.literal('layout'),
      target: rectangleSchema,
      others: rectangleSchema,
      clearance: nonNegative.default(0.01).describe('m'),
    })
    .strict(),
  /**
   * WAFR 2018 Sec. 7.2, grasping in clutter (experiments/clutter.ts): `objects` boxes and
   * cylinders drawn from the `object` ranges (default WAFR fn. 1), one of them the target (the
   * scene's goal slider, drawn again until it fits between the open fingers with `fit` to spare
   * on each side from any direction), placed uniformly on the table with their centres
   * `edgeMargin` inside its edges, `clearance` apart from each other and from the gripper.
   */
  z
    .object({
      kind: z.literal('clutter'),
      objects: count(1).max(
        SCENE_LIMITS.sliders,
        `must be at most ${SCENE_LIMITS.sliders} (the scene limit)`,
      ),
      object: objectSamplingSchema.prefault({}),
      edgeMargin: nonNegative.default(0.05).describe('m'),
      clearance: nonNegative.default(0.01).describe('m'),
      fit: nonNegative.default(0.01).describe('m'),
    })
    .strict(),
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

/**
 * The executed actions at which a run of this planner ends: its own cap, or, for a task without
 * one (maxExecutedActions: null, where the time limit alone is meant to end the run), the safety
 * ceiling every run is held to.
 */
export function actionCap(planner: Task['planner']): number {
  return planner.maxExecutedActions ?? MAX_ACTIONS;
}
export type TaskPlanner = z.infer<typeof taskPlannerSchema>;
export type NoiseModel = z.infer<typeof noiseSchema>;
export type Sampling = z.infer<typeof samplingSchema>;
export type ObjectSampling = z.infer<typeof objectSamplingSchema>;
export type LayoutSampling = Extract<Sampling, { kind: 'layout' }>;

export class TaskFileError extends Error {
  override name = 'TaskFileError';
}

export interface LoadedTask {
  task: Task;
  scene: Scene;
  file: string;
  /** The scene's file, as the task names it (relative to the task file). */
  sceneFile: string;
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
  const task = readStoredJson(file, taskSchema, { what: 'task', error: TaskFileError });
  const sceneFile = path.resolve(path.dirname(file), task.scene);
  const scene = loadSceneFile(sceneFile);
  checkTaskFitsScene(task, scene, file);
  const s = task.sampling;
  if (s.kind === 'wafr-point' && !tableRegion(scene.table).contains(s.start.x, s.start.y))
    throw new TaskFileError(
      `${file}: invalid task\n  sampling.start: is off the table of scene "${scene.name}"`,
    );
  if (s.kind === 'layout')
    for (const field of ['target', 'others'] as const) {
      const { x, y } = s[field];
      const table = tableRegion(scene.table);
      if (!x.every((cx) => y.every((cy) => table.contains(cx, cy))))
        throw new TaskFileError(
          `${file}: invalid task\n  sampling.${field}: reaches off the table of scene "${scene.name}"`,
        );
    }
  return { task, scene, file, sceneFile };
}

/**
 * The task's settings against its scene's robot: the control space (the pusher's 2 inputs or the
 * gripper's 4: contract/state.ts Control) and what only one robot can do. A mismatch is a
 * TaskFileError naming the field, as parseTask's are.
 */
export function checkTaskFitsScene(task: Task, scene: Scene, file = '<task>'): void {
  const problems: string[] = [];
  const problem = (field: string, message: string): number => problems.push(`  ${field}: ${message}`);
  const tool = endEffectorOf(scene);
  const inputs = tool.inputs.map((i) => i.name);
  const name = tool.title;
  const variance = task.planner.optimizer.explorationVariance;
  if (Array.isArray(variance) && variance.length !== inputs.length)
    problem(
      'planner.optimizer.explorationVariance',
      `has ${variance.length} values; the control space of the ${name} has ${inputs.length} inputs (${inputs.join(', ')})`,
    );
  if (new Set(tool.inputs.map((i) => i.unit)).size > 1 && !Array.isArray(variance))
    problem(
      'planner.optimizer.explorationVariance',
      `the ${name}'s inputs differ in units: give one variance per input (${inputs.join(', ')})`,
    );
  // Grasping needs fingers; placing the robot behind the object needs the cylindrical pusher.
  task.costs.forEach((c, i) => {
    if ((c.term === 'grasp' || c.term === 'hand-clear') && !tool.fingers)
      problem(`costs.${i}.term`, `the ${c.term} term needs a gripper scene`);
  });
  const kind = task.sampling.kind;
  if (kind === 'clutter' && !tool.fingers) problem('sampling.kind', 'clutter sampling needs a gripper scene');
  if (kind !== 'clutter' && kind !== 'jitter' && tool.discRadius === undefined)
    problem('sampling.kind', `"${kind}" places a pusher behind the object; the scene's robot is the ${name}`);
  if (problems.length > 0)
    throw new TaskFileError(`${file}: task does not fit scene "${scene.name}"\n${problems.join('\n')}`);
}
