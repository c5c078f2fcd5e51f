/**
 * The console API's sessions and playback commands: recorded run logs, their recovery, their
 * playback and what-if re-planning, with what a log says about its run. Playback never moves the
 * robot.
 */
import { z } from 'zod';
import { labKindSchema } from '../lab-view';
import { plannerStepSchema } from '../planner-events';
import { modelRequestKindSchema, plannerSettingsSchema } from '../planner-settings';
import { runModeSchema } from '../run-lifecycle';
import { sceneSchema } from '../scene';
import { finite, nonNegative } from './numbers';
import { runPredictionErrorSchema } from '../prediction-error';

/** A session log file name inside the sessions folder: no folders, no way out of it. */
const sessionFileNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}\.mcap$/, 'must be a file name ending in .mcap (no folders)');

/**
 * Where a recorded run was started: the console, `parapush run` (headless), an experiment's run in
 * the simulated world (`parapush experiment --sessions`: no lab), or a test or bench.
 */
export const sessionOriginSchema = z.enum(['console', 'headless', 'experiment', 'test', 'bench']);
export type SessionOrigin = z.infer<typeof sessionOriginSchema>;

/** Which prediction model a run asked for and which it used (see sessionSummarySchema.prediction). */
export const predictionChoiceSchema = z
  .object({
    requested: modelRequestKindSchema,
    /** The model spec planned with: fine, coarse, parareal:K or parareal:adaptive:K. */
    model: z.string().nullable(),
    workers: z.number().int().min(1).nullable(),
    /** Why auto chose it (parareal/model-choice.ts); null for a model asked for by name. */
    reason: z.string().nullable(),
  })
  .strict();
export type PredictionChoice = z.infer<typeof predictionChoiceSchema>;

/** What a session log says about its run (stored in the log; see src-main/session). */
export const sessionSummarySchema = z.object({
  sessionId: z.string().nullable(),
  /** Wall clock of the first message, s since the epoch; null for an empty log. */
  startedAt: z.number().nullable(),
  /** From the first to the last message, s. */
  duration: z.number(),
  mode: runModeSchema.nullable(),
  scene: z.string().nullable(),
  model: z.string().nullable(),
  /** How the run ended; "interrupted" when the log was cut short and recovered. */
  outcome: z.string(),
  outcomeDetail: z.string().nullable(),
  softwareVersion: z.string().nullable(),
  /** The lab the run was on, as its devices said (contract/lab-view.ts); absent in older logs. */
  lab: labKindSchema.nullable().optional(),
  /** Where the run was started; absent in logs summarised before it was kept. */
  origin: sessionOriginSchema.nullable().optional(),
  /**
   * The prediction model the run asked for (the settings' kind: auto, fine, ...) and, once it
   * planned, the one it used and on how many workers, with auto's reason (the log's `/run/model`);
   * absent in logs summarised before it was kept, `model`/`workers`/`reason` null in logs older
   * than `/run/model` or of runs that never got to plan.
   */
  prediction: predictionChoiceSchema.nullable().optional(),
  recovered: z.boolean(),
  messageCounts: z.record(z.string(), z.number().int()),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const sessionListingSchema = z
  .object({
    file: z.string(),
    state: z.enum(['complete', 'needs-recovery', 'recording', 'unreadable']),
    summary: sessionSummarySchema.nullable(),
    problem: z.string().nullable(),
    bytes: z.number().int().min(0),
  })
  .strict();
export type SessionListingInfo = z.infer<typeof sessionListingSchema>;

export const playbackStatusSchema = z
  .object({
    file: z.string(),
    duration: nonNegative.describe('s'),
    position: nonNegative.describe('s'),
    playing: z.boolean(),
    speed: finite,
    ended: z.boolean(),
    /** Counts seeks: the view clears what it drew when this changes. */
    seeks: z.number().int().min(0),
  })
  .strict();
export type PlaybackStatusInfo = z.infer<typeof playbackStatusSchema>;

export const sessionCommands = [
  // Sessions: recorded run logs, their playback and what-if re-planning. Playback never moves the robot.
  z.object({ type: z.literal('sessions.list') }).strict(),
  z.object({ type: z.literal('sessions.open'), file: sessionFileNameSchema }).strict(),
  /**
   * Recovery of one log that needs it (cut short or damaged): rewritten as a complete log, the
   * original kept as FILE.damaged when more than a torn last record is lost. Refused unless
   * `confirm` is true, which the console sets only after the operator has confirmed; nothing
   * recovers a log unasked.
   */
  z
    .object({ type: z.literal('sessions.recover'), file: sessionFileNameSchema, confirm: z.boolean() })
    .strict(),
  /** Re-plans logged planner step `step` (its index in the log) from its logged state with `settings`. */
  z
    .object({
      type: z.literal('sessions.whatif'),
      step: z.number().int().min(0),
      settings: plannerSettingsSchema,
    })
    .strict(),
  z.object({ type: z.literal('playback.play') }).strict(),
  z.object({ type: z.literal('playback.pause') }).strict(),
  z.object({ type: z.literal('playback.seek'), position: nonNegative.describe('s') }).strict(),
  z
    .object({
      type: z.literal('playback.speed'),
      speed: finite.refine((v) => v >= 0.1 && v <= 10, 'must be between 0.1 and 10'),
    })
    .strict(),
  z.object({ type: z.literal('playback.close') }).strict(),
] as const;

export const sessionResults = {
  'sessions.list': z.object({ folder: z.string(), sessions: z.array(sessionListingSchema) }).strict(),
  'sessions.open': z
    .object({
      summary: sessionSummarySchema,
      steps: z.number().int().min(0),
      /** The scene the run was recorded on, for the view only: it never becomes the live scene. */
      scene: sceneSchema.nullable(),
      playback: playbackStatusSchema,
      /** The planner's prediction error per executed control, as logged; null in a log without it. */
      predictionError: runPredictionErrorSchema.nullable(),
    })
    .strict(),
  'sessions.recover': z
    .object({
      summary: sessionSummarySchema,
      /** Messages in the recovered log. */
      messages: z.number().int().min(0),
      /** What could not be kept, in words ("lost 1 message in 1 damaged range of ... bytes: ..."). */
      lost: z.string(),
      /** File name of the kept original, or null when only a torn last record was lost. */
      damagedCopy: z.string().nullable(),
    })
    .strict(),
  'sessions.whatif': z.object({ original: plannerStepSchema, replanned: plannerStepSchema }).strict(),
  'playback.play': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.pause': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.seek': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.speed': z.object({ playback: playbackStatusSchema }).strict(),
  'playback.close': z.object({}).strict(),
} as const;
