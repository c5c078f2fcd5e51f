/**
 * The lab as the console shows it and a session log records it: which lab it is (virtual, real
 * or a mix, as its devices say of themselves), the scene its link was opened on, and where the
 * setup puts the table, the workspace, the robot base and the motion-capture frame (table frame:
 * origin at the table centre, x right, y up; metres and radians).
 */
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be greater than 0');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

/**
 * virtual: every device that answered is one of Parapush's virtual ones (the UR controller says
 * "(virtual)" in its version, the NatNet server's name starts with "Parapush"); real: none is;
 * mixed: some are; unknown: no device has said (not connected, or no answer).
 */
export const labKindSchema = z.enum(['virtual', 'real', 'mixed', 'unknown']);
export type LabKind = z.infer<typeof labKindSchema>;

/** A frame on the table: its origin (m) and the heading of its x axis (rad, from the table's x). */
export const planarFrameSchema = z.object({ x: finite, y: finite, yaw: finite }).strict();
export type PlanarFrame = z.infer<typeof planarFrameSchema>;

export const labSetupViewSchema = z
  .object({
    /** The setup's name (its file is <setup dir>/<robot host>.json). */
    name: z.string(),
    /** The physical table, centred on the table-frame origin (m). */
    table: z.object({ x: positive, y: positive }).strict(),
    /** The tool stays this far inside the table edges (m): the supervisor's workspace. */
    workspaceMargin: nonNegative,
    /** The UR5 base frame, from the table -> robot base calibration. */
    robotBase: planarFrameSchema,
    /** The motion-capture frame (Z-up), from the motion capture -> table calibration. */
    mocapFrame: planarFrameSchema,
  })
  .strict();
export type LabSetupView = z.infer<typeof labSetupViewSchema>;

export const labViewSchema = z
  .object({
    kind: labKindSchema,
    /** Where the lab is, in words. */
    description: z.string(),
    /** Whether the console (or the run) has a live link to it now. */
    connected: z.boolean(),
    /** The UR controller's software version, as its dashboard says; null when it has not said. */
    robot: z.string().nullable(),
    /** The motion-capture server's application name (NatNet server info); null when unknown. */
    mocap: z.string().nullable(),
    /** Name of the scene the lab's link was opened on; null when not connected. */
    scene: z.string().nullable(),
    /** The setup the link reads poses and judges the pre-flight checks with; null when not connected. */
    setup: labSetupViewSchema.nullable(),
  })
  .strict();
export type LabView = z.infer<typeof labViewSchema>;

/** What the devices' own words make of the lab (see labKindSchema). */
export function labKindOf(robot: string | null, mocap: string | null): LabKind {
  const said = [
    robot === null ? null : /\(virtual\)/i.test(robot),
    mocap === null ? null : /^Parapush\b/i.test(mocap),
  ].filter((v): v is boolean => v !== null);
  if (said.length === 0) return 'unknown';
  if (said.every((v) => v)) return 'virtual';
  if (said.every((v) => !v)) return 'real';
  return 'mixed';
}
