/**
 * Payloads several namespaces of the console API share: a validation problem, a connection's
 * state, the pre-flight checklist and a run's status.
 */
import { z } from 'zod';
import { runModeSchema, runPhaseSchema } from '../run-lifecycle';
import { nonNegative } from './numbers';

export const validationProblemSchema = z.object({ path: z.string(), message: z.string() }).strict();
export type ValidationProblem = z.infer<typeof validationProblemSchema>;

export const connectionSchema = z
  .object({
    id: z.enum(['optitrack', 'ur5', 'gripper', 'workers']),
    label: z.string(),
    state: z.enum(['not-configured', 'disconnected', 'connecting', 'connected', 'error']),
    /** Round-trip or system latency, s; null when unknown. */
    latency: nonNegative.nullable(),
    detail: z.string(),
  })
  .strict();
export type Connection = z.infer<typeof connectionSchema>;

/** One pre-flight check as the Setup view lists it: what was looked at and, when red, why. */
export const preflightCheckSchema = z
  .object({
    id: z.enum([
      'mocap',
      'mocap-interface',
      'mocap-axes',
      'robot-mode',
      'safety-mode',
      'program',
      'pusher-held',
      'gripper-open',
      'calibration',
      'calibration-agreement',
      'scene',
      'speed-slider',
      'reach',
      'force-limit',
      'pivots',
    ]),
    label: z.string(),
    ok: z.boolean(),
    reason: z.string(),
    /** What the operator can do about it from the console: `restart-program` (robot.restart-program). */
    action: z.enum(['restart-program']).optional(),
    /** When red, what the operator does about it. */
    fix: z.string().optional(),
  })
  .strict();
export const preflightReportSchema = z
  .object({ ok: z.boolean(), checks: z.array(preflightCheckSchema) })
  .strict();
export type PreflightReportPayload = z.infer<typeof preflightReportSchema>;

/** A run as the operator sees it: its phase (contract/run-lifecycle.ts) and what it reads now. */
export const runStatusSchema = z
  .object({
    phase: runPhaseSchema,
    mode: runModeSchema.nullable(),
    /** Why the run is in this phase, in words for the operator (e.g. "Aborted by operator"). */
    reason: z.string().nullable(),
    /** Wall-clock start of the run, s since the epoch; null when no run has started. */
    startedAt: nonNegative.nullable(),
    /** Run time at the last change, s. */
    elapsed: nonNegative,
    safety: z.enum(['safe', 'stopped', 'fault', 'unknown']),
    armed: z.boolean(),
    /**
     * A real run waits for the operator's Arm now (its checks judged by contract/arm-readiness.ts);
     * absent or false otherwise.
     */
    awaitingArm: z.boolean().optional(),
  })
  .strict();
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The status before any run has started. */
export const idleRunStatus: RunStatus = {
  phase: 'idle',
  mode: null,
  reason: null,
  startedAt: null,
  elapsed: 0,
  safety: 'unknown',
  armed: false,
};
