/**
 * A first setup for a lab that has none: what the operator measures with a tape (the physical
 * table, the tool's pusher offset) and chooses (the safety envelope), with both calibrations left
 * as placeholders and listed as not calibrated, so that no run can be armed on them. The
 * calibration wizard then replaces each placeholder with a fitted calibration and takes it off
 * the list. Written to the user's data folder (defaultSetupDir), never to the app's files.
 */
import { existsSync } from 'node:fs';
import type { SetupTemplate } from '#contract/lab-setup';
import { identityCalibration } from './mocap-table';
import { problemsOf } from '#contract/scene-file';
import { saveSetup, setupSchema, type Setup, type SetupInput } from './setup-file';

/** The setup a template describes: placeholder frames, both stages still to calibrate. */
export function setupFromTemplate(t: SetupTemplate): SetupInput {
  return {
    name: t.name,
    notCalibrated: ['mocap', 'robot'],
    // Placeholders until the wizard fits them: the table frame taken as motion capture's (Z-up),
    // and as the robot base's.
    mocap: identityCalibration(t.mocapUpAxis, t.name),
    table: { size: { x: t.table.x, y: t.table.y } },
    robot: { calibration: { yaw: 0, offset: [0, 0, 0] }, pusherOffset: [...t.pusherOffset] },
    safety: {
      workspaceMargin: t.workspaceMargin,
      heightBand: [...t.heightBand],
      maxCalibrationResidual: t.maxCalibrationResidual,
      acceleration: 0.5,
    },
  };
}

/**
 * Writes the template's setup to `file`; refuses to replace a setup that exists (calibrations are
 * not thrown away by a template), and any value outside the setup's physical limits.
 */
export function writeSetupFromTemplate(file: string, t: SetupTemplate): string {
  if (existsSync(file))
    throw new Error(`a setup already exists at ${file}: connect and calibrate it, or move it away first`);
  const checked = setupSchema.safeParse(setupFromTemplate(t));
  if (!checked.success)
    throw new Error(
      `setup not written: ${problemsOf(checked.error)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; ')}`,
    );
  return saveSetup(file, checked.data);
}

/** The setup with one calibration stage done: off the list of stages still to calibrate. */
export function calibrated(setup: Setup, stage: 'mocap' | 'robot'): Setup {
  const left = (setup.notCalibrated ?? []).filter((s) => s !== stage);
  const { notCalibrated: _, ...rest } = setup;
  return left.length > 0 ? { ...rest, notCalibrated: left } : rest;
}
