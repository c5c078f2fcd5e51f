/**
 * Events of one planner run: one 'planner-step' per executed action (the console API carries the
 * same object, so the console and the session log read one thing) and one 'planner-finished' at
 * the end. SI units throughout.
 */
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

const stateVector = z.array(finite);
/** A control (contract/state.ts): the pusher's vx, vy (m/s), or the gripper's vx, vy, yaw rate, opening speed. */
const action = z
  .array(finite)
  .min(2)
  .max(4)
  .describe(
    'robot velocities: pusher vx, vy in m/s; gripper vx, vy (m/s), yaw rate (rad/s), opening speed (m/s)',
  );

export const plannerStepSchema = z
  .object({
    /** Executed action index, from 0. */
    step: z.number().int().min(0),
    /** Run time at which planning for this step started, s. */
    time: nonNegative,
    /** Slider ids in state-layout order (see contract/state.ts). */
    sliderIds: z.array(z.string()).min(1),
    /** The measured state planning started from. */
    start: stateVector,
    /** The chosen control sequence. */
    plan: z.array(action).min(1),
    controlDuration: finite.refine((v) => v > 0, 'must be greater than 0').describe('s'),
    /** Predicted states at each control boundary, one trajectory per Parareal iteration (0 = coarse). */
    predictions: z.array(
      z.object({ iteration: z.number().int().min(0), states: z.array(stateVector) }).strict(),
    ),
    /** Largest slider pose change between successive Parareal iterations (convergence). */
    convergence: z.array(
      z.object({ iteration: z.number().int().min(1), translation: nonNegative, rotation: nonNegative }),
    ),
    /** Best cost after each optimizer iteration. */
    costs: z.array(finite),
    /** Optional sampled rollouts (positions only at control boundaries), for "rollout traces on demand". */
    rollouts: z.array(z.array(stateVector)).optional(),
    /**
     * Asynchronous MPC, or a plan checked against a fresh observation before sending: how far the
     * observation was from the state the plan started from (m, rad), and whether that difference
     * made the loop plan again from the observation.
     */
    replan: z
      .object({
        divergence: z.object({ translation: nonNegative, rotation: nonNegative }).strict(),
        replanned: z.boolean(),
      })
      .strict()
      .optional(),
    /**
     * A run's first step, planned while its pre-flight ran from the table observed then: true when
     * the plan sent is that one, false when the table had moved by arming and it was dropped for a
     * fresh plan (replan says how far). Absent for every other step, every simulated run and logs
     * written before runs planned ahead.
     */
    beforeArming: z.boolean().optional(),
    timings: z
      .object({
        planning: nonNegative.describe('s, wall time to produce this plan'),
        prediction: nonNegative.describe('s, wall time spent in predictions'),
        /** Control sequences predicted to make this plan: its work, beside its time. Absent in older logs. */
        sequences: z.number().int().min(0).optional(),
        /**
         * The workers' CPU time for those predictions, s: the plan's work per sequence measured
         * so that other processes on the same cores do not stretch it (planning does). Absent in
         * older logs.
         */
        workerCpu: nonNegative.optional(),
        /**
         * MuJoCo steps of those predictions, and the solver's iterations summed over them: the
         * work, counted. Absent in older logs.
         */
        fineSteps: z.number().int().min(0).optional(),
        solverIterations: z.number().int().min(0).optional(),
        workers: z.number().int().min(0),
        /** Parareal's speedup over the fine model in theory, N / K (ISRR 2019 Eq. 4); null without Parareal. */
        theoreticalSpeedup: nonNegative.nullable(),
      })
      .strict(),
  })
  .strict();
export type PlannerStep = z.infer<typeof plannerStepSchema>;

/**
 * The task's result: how the planning task came out, as the MPC loop concludes it. It is not how
 * the run ended (the run's outcome, what the operator sees: contract/run-end.ts maps one onto the
 * other).
 */
export const taskResultSchema = z.enum(['success', 'failure', 'action-limit', 'time-limit', 'aborted']);
export type TaskResult = z.infer<typeof taskResultSchema>;

export const failureKindSchema = z.enum(['obstacle-collision', 'off-table', 'non-goal-in-goal']);

export const runSummarySchema = z
  .object({
    /** The task's result (the field keeps its name: run records and session logs on disk carry it). */
    outcome: taskResultSchema,
    /** Which failure ended the run (result 'failure' only). */
    failure: failureKindSchema.nullable(),
    /** Words for the operator, e.g. "object hit obstacle". */
    detail: z.string().nullable(),
    /** Executed actions. */
    actions: z.number().int().min(0),
    /** Planning wall time plus execution time (controls and rest), s. */
    taskTime: nonNegative,
    /** Planning wall time of each step, s; 0 for a step that ran without a plan (the gripper closing on the target). */
    planningTimes: z.array(nonNegative),
    /** Executed controls in order: one velocity per robot DOF (contract/state.ts Control). */
    controls: z.array(z.array(finite).min(2).max(4)),
    /** Observed states: the start and the state after each action. */
    states: z.array(z.array(finite)),
  })
  .strict();
export type RunSummary = z.infer<typeof runSummarySchema>;

export const plannerEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('planner-step'), step: plannerStepSchema }).strict(),
  z.object({ type: z.literal('planner-finished'), summary: runSummarySchema }).strict(),
]);
export type PlannerEvent = z.infer<typeof plannerEventSchema>;
