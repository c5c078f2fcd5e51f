/**
 * Events of one planner run: one 'planner-step' per executed action (the console API's planner
 * step, reused as it is so the console and the session log read the same object) and one
 * 'planner-finished' at the end. SI units throughout.
 */
import { z } from 'zod';
import { plannerStepSchema } from './console-api';

export { plannerStepSchema, type PlannerStep } from './console-api';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

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
