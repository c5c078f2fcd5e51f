/**
 * Planner settings as the operator chooses them in the console, and the presets taken from the
 * papers. SI units throughout (metres, radians, seconds); the UI converts to mm/deg/ms for display.
 */
import { z } from 'zod';
import { MAX_ACTIONS, MAX_CONTROL_DURATION, MAX_HORIZON } from './safety-limits';
import { DEFAULT_PREDICTION, fineModelSettingsSchema } from './scene';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be greater than 0');
const count = (min: number, max: number) =>
  z
    .number()
    .int('must be a whole number')
    .min(min, `must be ${min} or more`)
    .max(max, `must be ${max} or less`);

/**
 * The kind of prediction model the operator asks for: the kind of parareal/model-choice.ts's
 * ModelRequest, whose Parareal iterations and slices come from the rest of the settings. A
 * request resolves to a PredictionModel (parareal/predictor.ts) when the run starts; `auto`:
 * fine or Parareal, whichever plans faster on this machine's workers.
 */
export const modelRequestKindSchema = z.enum(['coarse', 'parareal', 'fine', 'auto']);
/** The coarse model of Parareal (and of coarse-only planning): analytical, or the learned MLP. */
export const coarseModelKindSchema = z.enum(['analytical', 'learned']);
export type CoarseModelKind = z.infer<typeof coarseModelKindSchema>;
/**
 * A planner's kind (the task file's planner.kind, a run's settings): the name of an entry of the
 * planner registry (src-main/planning/planners.ts), which alone lists the kinds and checks a kind
 * against them, so that a planner is added by its folder and its registry line.
 */
export const plannerKindSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'a planner kind: lower-case letters, digits and dashes');
/**
 * synchronous: the arm holds still while each step is planned; asynchronous: the next step is
 * planned while the arm executes this one (the task file's planner.loopMode).
 */
export const loopModeSchema = z.enum(['synchronous', 'asynchronous']);

export const pararealStopSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('iterations'), iterations: count(1, 32) }).strict(),
  z
    .object({
      mode: z.literal('adaptive'),
      /** Stop iterating once no slider pose moves more than this between two iterations. */
      translationTolerance: positive.describe('m'),
      rotationTolerance: positive.describe('rad'),
      maxIterations: count(1, 32),
    })
    .strict(),
]);

export const plannerSettingsSchema = z
  .object({
    predictionModel: modelRequestKindSchema,
    parareal: pararealStopSchema,
    /**
     * Parareal time slices per prediction (each runs on a worker). The run's ModelRequest holds
     * the slice width instead, controlsPerSlice = horizon / slices: a count fits a fixed horizon,
     * a width also fits sequences of other lengths (TAMPC's candidates).
     */
    slices: count(1, 64),
    coarseModel: coarseModelKindSchema,
    /** Noisy control sequences sampled per optimizer iteration. */
    rollouts: count(1, 1000),
    /** Controls per planned sequence. */
    horizon: count(1, MAX_HORIZON),
    controlDuration: positive
      .max(MAX_CONTROL_DURATION, `must be at most ${MAX_CONTROL_DURATION} s`)
      .describe('s, duration of one control'),
    explorationVariance: positive.describe('(m/s)^2, variance of the sampling noise on pusher velocity'),
    /**
     * Largest pusher speed the planner may command and the supervisor allows: the scene's
     * limits.maxPusherSpeed, lowered to this when it is stricter (console/task-from-settings.ts).
     */
    maxPusherSpeed: positive.describe('m/s'),
    /**
     * Any planner kind, so that a run's settings record what it planned with (an experiment's
     * UAMPC runs too); the console lists only the kinds the registry offers.
     */
    planner: plannerKindSchema,
    /** Upper bound on executed actions before the run ends unsuccessfully. */
    maxExecutedActions: count(1, MAX_ACTIONS),
    /**
     * The fine model the planner predicts with (the task file's planner.prediction), not the world
     * the plan is executed in. Settings saved before it existed get the default, Euler at 2 ms.
     */
    prediction: fineModelSettingsSchema.prefault(DEFAULT_PREDICTION),
    loopMode: loopModeSchema.default('synchronous'),
  })
  .strict()
  .superRefine((s, ctx) => {
    // The task file's rule: a control is simulated in whole prediction steps.
    const steps = s.controlDuration / s.prediction.timestep;
    if (Number.isFinite(steps) && Math.abs(steps - Math.round(steps)) > 1e-9)
      ctx.addIssue({
        code: 'custom',
        path: ['prediction', 'timestep'],
        message: `must divide the control duration (${s.controlDuration} s) into whole steps`,
      });
    if (
      s.predictionModel === 'parareal' &&
      s.parareal.mode === 'iterations' &&
      s.parareal.iterations > s.slices
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['parareal', 'iterations'],
        message: `more iterations than slices (${s.slices}) cannot improve the prediction: it is exact at ${s.slices}`,
      });
    }
  });

export type PlannerSettings = z.infer<typeof plannerSettingsSchema>;

/**
 * Settings as an older console wrote them (its settings file, a session log's settings) in
 * today's names: the pusher speed limit was `actionLimit`, a name the run's 'action-limit'
 * outcome (the executed-action limit) also used. Anything else is returned as it is.
 */
export function withCurrentSettingsNames(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || !('actionLimit' in json) || 'maxPusherSpeed' in json)
    return json;
  const { actionLimit, ...rest } = json as Record<string, unknown>;
  return { ...rest, maxPusherSpeed: actionLimit };
}
export type ModelRequestKind = z.infer<typeof modelRequestKindSchema>;
export type LoopMode = z.infer<typeof loopModeSchema>;

/**
 * The ISRR 2019 planner: 4 controls of 1 s, 20 noisy sequences, variance 1e-4, 0.1 m/s, 20 actions;
 * synchronous MPC, predicting with the default fine model (Euler at 2 ms).
 */
const isrr2019Base = {
  slices: 4,
  coarseModel: 'analytical',
  rollouts: 20,
  horizon: 4,
  controlDuration: 1,
  explorationVariance: 1e-4,
  maxPusherSpeed: 0.1,
  planner: 'mpc',
  maxExecutedActions: 20,
  prediction: DEFAULT_PREDICTION,
  loopMode: 'synchronous',
} as const;

export const plannerPresets = {
  recommended: {
    label: 'Recommended: the ISRR 2019 planner on the model that plans fastest here (auto: fine or Parareal)',
    settings: { ...isrr2019Base, predictionModel: 'auto', parareal: { mode: 'iterations', iterations: 2 } },
  },
  // Asynchronous: a fine step plans in about a third of its control on 2 workers, and the fine
  // model's predicted state is the one the observation is checked against (docs/planner.md).
  'isrr2019-fine': {
    label: 'ISRR 2019: fine model (MuJoCo) only, the next step planned during the control',
    settings: {
      ...isrr2019Base,
      predictionModel: 'fine',
      parareal: { mode: 'iterations', iterations: 4 },
      loopMode: 'asynchronous',
    },
  },
  'isrr2019-parareal-2': {
    label: 'ISRR 2019: Parareal, 2 iterations (simulation)',
    settings: {
      ...isrr2019Base,
      predictionModel: 'parareal',
      parareal: { mode: 'iterations', iterations: 2 },
    },
  },
  'isrr2019-parareal-1': {
    label: 'ISRR 2019: Parareal, 1 iteration (real robot)',
    settings: {
      ...isrr2019Base,
      predictionModel: 'parareal',
      parareal: { mode: 'iterations', iterations: 1 },
    },
  },
  'isrr2019-coarse': {
    label: 'ISRR 2019: analytical coarse model only',
    settings: { ...isrr2019Base, predictionModel: 'coarse', parareal: { mode: 'iterations', iterations: 1 } },
  },
  'cvs2020-learned-parareal-1': {
    label: 'CVS 2020: Parareal with the learned coarse model, 1 iteration (real robot)',
    settings: {
      ...isrr2019Base,
      coarseModel: 'learned',
      predictionModel: 'parareal',
      parareal: { mode: 'iterations', iterations: 1 },
    },
  },
  'wafr2018-tampc': {
    label: 'WAFR 2018: task-adaptive MPC with the fine model',
    settings: {
      ...isrr2019Base,
      planner: 'tampc',
      predictionModel: 'fine',
      parareal: { mode: 'iterations', iterations: 4 },
    },
  },
} as const satisfies Record<string, { label: string; settings: PlannerSettings }>;

export type PlannerPresetName = keyof typeof plannerPresets;
export const plannerPresetNameSchema = z.enum(
  Object.keys(plannerPresets) as [PlannerPresetName, ...PlannerPresetName[]],
);

/**
 * What the console starts with: the preset that plans a step within a control's time on any
 * machine (on a few cores the fine model does, with many Parareal; see parareal/model-choice.ts).
 * Parareal K = 2 took 2 to 2.7 s per 1 s step on two cores in the console's dry runs.
 */
export const defaultPlannerSettings: PlannerSettings = plannerSettingsSchema.parse(
  plannerPresets.recommended.settings,
);
