/**
 * The configured real lab as the Setup view drives it between runs: whether it is connected, its
 * setup file (where calibrations go) and whether that exists yet, and the template a first setup
 * is written from (the physical table, the tool, the safety envelope; both calibrations left for
 * the wizard). Metres on the wire, millimetres only on screen.
 */
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be more than 0 m');

/** What the operator measures of a new lab before calibrating it (SI units, m). */
export const setupTemplateSchema = z
  .object({
    /** The setup's name (as calibrations name their setup). */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - only'),
    /** The physical table, centred on the table-frame origin (m). */
    table: z.object({ x: positive, y: positive }).strict(),
    /** Pusher tip centre from the tool centre point, tool frame (m): the gripper plus the pusher. */
    pusherOffset: z.tuple([finite, finite, finite]),
    /** The tool stays this far inside the table edges (m). */
    workspaceMargin: positive,
    /** Allowed heights of the pusher tip above the table, [low, high] (m). */
    heightBand: z.tuple([finite, finite]),
    /** Largest acceptable calibration residual, RMS (m). */
    maxCalibrationResidual: positive,
    /** The motion-capture server's up axis (Motive streams Y-up by default). */
    mocapUpAxis: z.enum(['y', 'z']),
  })
  .strict();
export type SetupTemplate = z.infer<typeof setupTemplateSchema>;

export const calibrationStageNames = ['mocap', 'robot'] as const;

export const labConnectionSchema = z
  .object({
    /** A real lab is configured (`--lab FILE`, `<userData>/lab.json`). */
    configured: z.boolean(),
    /** Where it is, in words; null when none is configured. */
    description: z.string().nullable(),
    connected: z.boolean(),
    /** Its setup file; null when none is configured. */
    setupFile: z.string().nullable(),
    setupExists: z.boolean(),
    /** Calibration stages the setup still needs (written from a template, not calibrated yet). */
    notCalibrated: z.array(z.enum(calibrationStageNames)),
    /**
     * What connecting waits for now ("RTDE inputs held by a previous session; retrying for up to
     * 10 s"); null when it waits for nothing.
     */
    notice: z.string().nullable(),
    /** The network interface motion capture is heard on (chosen from the route to Motive); null when not connected. */
    mocapInterface: z.string().nullable(),
  })
  .strict();
export type LabConnectionInfo = z.infer<typeof labConnectionSchema>;
