/**
 * A lab setup: what ties the motion-capture frame, the table frame and the robot base together,
 * and the safety envelope around them. Produced by calibration (or, for the virtual lab, written
 * from its known truth) and loaded by every real run; a run without one cannot be armed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { calibrationSchema } from '../mocap/calibration';
import { calibrationInputSchema } from '../robot/adapter';
import { problemsOf } from '../contract/scene-file';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

export const setupSchema = z
  .object({
    name: z.string().min(1),
    /** Motion capture -> table frame. */
    mocap: calibrationSchema,
    robot: z
      .object({
        /** Table -> robot base frame. */
        calibration: calibrationInputSchema,
        /** Pusher tip centre from the tool centre point, tool frame (m). */
        pusherOffset: z.tuple([finite, finite, finite]),
        /** How well the table -> base fit matched its points (m); absent when not fitted by the wizard. */
        residual: z
          .object({ rms: finite, max: finite, pairs: z.number().int().min(0) })
          .strict()
          .optional(),
      })
      .strict(),
    safety: z
      .object({
        /** The tool stays this far inside the table edges (m). */
        workspaceMargin: finite.default(0.03),
        /** Allowed heights of the pusher tip above the table (m). */
        heightBand: z.tuple([finite, finite]).default([0, 0.02]),
        /** Largest acceptable calibration residual, RMS (m). */
        maxCalibrationResidual: finite.default(0.003),
        /** Linear acceleration of commands and stops (m/s^2). */
        acceleration: finite.default(0.5),
      })
      .strict()
      .default({
        workspaceMargin: 0.03,
        heightBand: [0, 0.02],
        maxCalibrationResidual: 0.003,
        acceleration: 0.5,
      }),
  })
  .strict();

export type Setup = z.infer<typeof setupSchema>;
export type SetupInput = z.input<typeof setupSchema>;

export function defaultSetupDir(): string {
  return process.env.PARAPUSH_SETUP_DIR ?? path.join(os.homedir(), '.parapush', 'setups');
}

export function saveSetup(file: string, setup: SetupInput): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(setupSchema.parse(setup), null, 2)}\n`);
  return file;
}

export function loadSetup(file: string): Setup {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: cannot read the lab setup: ${(err as Error).message}`, { cause: err });
  }
  const r = setupSchema.safeParse(json);
  if (!r.success) {
    throw new Error(
      `${file}: invalid lab setup\n${problemsOf(r.error)
        .map((p) => `  ${p.path}: ${p.message}`)
        .join('\n')}`,
    );
  }
  return r.data;
}
