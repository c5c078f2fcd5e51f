/**
 * The console API's calibration commands (the Setup view's wizard): captures never move the arm;
 * the operator places the pusher (by hand, on the pendant, or with calibration.jog).
 */
import { z } from 'zod';
import { finite, nonNegative } from './numbers';

/** The two calibration stages: motion capture -> table, and table -> robot base. */
export const calibrationStageIdSchema = z.enum(['mocap', 'robot']);
export type CalibrationStageId = z.infer<typeof calibrationStageIdSchema>;
const point3 = z.tuple([finite, finite, finite]).describe('m');
/** One jog's step along a robot base axis (m): at most 50 mm (robot/jog.ts MAX_JOG). */
const jogStep = finite.refine((v) => Math.abs(v) <= 0.05, 'must be within ±0.05 m');

/**
 * What a jog's path would do (contract/jog-path.ts): clear; `confirm`: it crosses an object or
 * obstacle (or the console cannot see all of them), so it moves only on the operator's
 * confirmation; `refused`: it ends too near the table edge. `message` says which and why.
 */
export const jogCheckSchema = z
  .object({ verdict: z.enum(['clear', 'confirm', 'refused']), message: z.string().nullable() })
  .strict();
export type JogCheck = z.infer<typeof jogCheckSchema>;

/** One stage of the calibration wizard: its point pairs, its fit and whether the fit was saved. */
export const calibrationStageSchema = z
  .object({
    /** table: the known table point (m); measured: the live mocap position (mocap frame) or tool point (base frame). */
    pairs: z.array(z.object({ table: point3, measured: point3 }).strict()),
    fit: z
      .object({
        kind: z.enum(['2d', '3d']),
        rms: nonNegative.describe('m'),
        max: nonNegative.describe('m'),
        /** Each pair's distance from the fitted transform (m), in pair order. */
        errors: z.array(nonNegative),
        /** Index of the pair with the largest error. */
        worst: z.number().int().min(0),
      })
      .strict()
      .nullable(),
    /**
     * Where the last save of this stage went and when (wall clock, s since the epoch); null until
     * saved (or after the pairs changed).
     */
    saved: z.object({ file: z.string(), at: nonNegative }).strict().nullable(),
  })
  .strict();
/** A rigid body's pivot offset (calibration/pivots.ts): the object from the body's pivot. */
export const pivotOffsetViewSchema = z
  .object({
    /** The object's point in the body frame, m. */
    position: point3,
    /** The object's yaw against the body's axes, rad. */
    yaw: finite,
    /** How it was found: `motive-reset` when measured as zero (the pivot reset in Motive). */
    method: z.enum(['turn', 'placement', 'motive-reset', 'truth']),
  })
  .strict();

/** The pivot stage: each bound body's offset as measured now and as the setup holds it. */
export const pivotStageSchema = z
  .object({
    bodies: z.array(
      z
        .object({
          /** Rigid-body name. */
          body: z.string(),
          /** `pusher` (the robot's body, measured by a turn) or a slider's id (by a placement). */
          of: z.string(),
          role: z.enum(['pusher', 'slider']),
          measured: pivotOffsetViewSchema
            .extend({
              /** A turn: the largest distance of a turned tip from the circle's centre, m. */
              spread: nonNegative.optional(),
            })
            .strict()
            .nullable(),
          /** What the connected setup holds for the body; null: none (pre-flight refuses). */
          saved: pivotOffsetViewSchema.nullable(),
        })
        .strict(),
    ),
    saved: z.object({ file: z.string(), at: nonNegative }).strict().nullable(),
  })
  .strict();
export type PivotStageState = z.infer<typeof pivotStageSchema>;

export const calibrationWizardSchema = z
  .object({
    /** The lab the captures come from, in words; null when no lab is connected. */
    lab: z.string().nullable(),
    /** Name of the connected lab's setup. */
    setup: z.string().nullable(),
    /** safety.maxCalibrationResidual of that setup (RMS, m). */
    limit: nonNegative,
    /** A capture is being taken now. */
    capturing: z.boolean(),
    mocap: calibrationStageSchema,
    robot: calibrationStageSchema,
    pivots: pivotStageSchema,
  })
  .strict();
export type CalibrationWizardState = z.infer<typeof calibrationWizardSchema>;
export type CalibrationStageState = z.infer<typeof calibrationStageSchema>;

const calibrationResult = z.object({ calibration: calibrationWizardSchema }).strict();

export const calibrationCommands = [
  // Calibration wizard (Setup view): captures never move the arm; the operator places the pusher
  // (by hand, on the pendant, or with calibration.jog).
  z.object({ type: z.literal('calibration.get') }).strict(),
  /** Records the live measurement (mocap: pusher body averaged ~0.5 s; robot: tool point) at a table point. */
  z
    .object({ type: z.literal('calibration.capture'), stage: calibrationStageIdSchema, table: point3 })
    .strict(),
  z
    .object({
      type: z.literal('calibration.remove'),
      stage: calibrationStageIdSchema,
      index: z.number().int().min(0),
    })
    .strict(),
  z.object({ type: z.literal('calibration.clear'), stage: calibrationStageIdSchema }).strict(),
  /**
   * Jogs the tool by (dx, dy) m along the robot base axes (at most 50 mm, slowly; Abort stops it).
   * Refused near the table edge; a path that crosses an object or obstacle (calibration.jog-check)
   * moves only with `confirmCrossing`.
   */
  z
    .object({
      type: z.literal('calibration.jog'),
      dx: jogStep,
      dy: jogStep,
      confirmCrossing: z.boolean().optional(),
    })
    .strict(),
  /** Judges a jog's path on the table before it moves (contract/jog-path.ts): nothing moves. */
  z.object({ type: z.literal('calibration.jog-check'), dx: jogStep, dy: jogStep }).strict(),
  /** Fits the stage's pairs: mocap 3D or planar ('2d'); the robot base is always planar. */
  z
    .object({
      type: z.literal('calibration.fit'),
      stage: calibrationStageIdSchema,
      kind: z.enum(['2d', '3d']),
    })
    .strict(),
  /** Writes the stage's fit into the connected lab's setup (file and live link). */
  z.object({ type: z.literal('calibration.save'), stage: calibrationStageIdSchema }).strict(),
  /**
   * Measures the pusher body's pivot offset: the arm turns the tool about the vertical through the
   * pusher's tip (to 0, 30, 60 and -30 deg, then back), the pivot's pose captured at each; the
   * circle it traces is centred on the tip.
   */
  z.object({ type: z.literal('calibration.pivot-turn') }).strict(),
  /** Measures a slider body's pivot offset from the object standing on its start pose (its marks). */
  z.object({ type: z.literal('calibration.pivot-place'), slider: z.string().min(1) }).strict(),
  /** Writes the measured pivot offsets into the connected lab's setup. */
  z.object({ type: z.literal('calibration.pivot-save') }).strict(),
] as const;

export const calibrationResults = {
  'calibration.get': calibrationResult,
  'calibration.capture': calibrationResult,
  'calibration.remove': calibrationResult,
  'calibration.clear': calibrationResult,
  'calibration.jog': calibrationResult,
  'calibration.jog-check': z.object({ check: jogCheckSchema }).strict(),
  'calibration.fit': calibrationResult,
  'calibration.save': calibrationResult,
  'calibration.pivot-turn': calibrationResult,
  'calibration.pivot-place': calibrationResult,
  'calibration.pivot-save': calibrationResult,
} as const;
