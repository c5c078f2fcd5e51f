/**
 * A lab setup: what ties the motion-capture frame, the table frame and the robot base together,
 * and the safety envelope around them. Produced by calibration (or, for the virtual lab, written
 * from its known truth) and loaded by every real run; a run without one cannot be armed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CALIBRATION_LIMITS } from '../calibration/limits';
import { calibrationSchema, mocapResidual } from '../calibration/mocap-table';
import { residualMismatch, residualSchema } from '../calibration/residual';
import { baseResidual, basePointSchema, calibrationInputSchema } from '../calibration/robot-base';
import { readStoredJson } from '../common/stored-json';
import { SETUP_LIMITS } from '#contract/safety-limits';
import { flangeLoadSchema } from '#contract/flange-load';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/** A finite number in [min, max], with the bound and its unit in the message. */
function within(min: number, max: number, unit: string) {
  return finite.refine(
    (v) => v >= min && v <= max,
    `must be between ${min} and ${max} ${unit} (physical limit of the lab)`,
  );
}

const L = SETUP_LIMITS;

const heightBandSchema = z
  .tuple([within(L.height.min, L.height.max, 'm'), within(L.height.min, L.height.max, 'm')])
  .refine(
    ([lo, hi]) => hi - lo >= L.minHeightBand,
    `must be [low, high] with high at least ${L.minHeightBand} m above low`,
  );

const pusherOffsetComponent = within(-L.pusherOffset, L.pusherOffset, 'm');

export const setupSchema = z
  .object({
    name: z.string().min(1),
    /**
     * Calibration stages still to do: a setup written from a template (setup-template.ts) holds
     * placeholder frames until the wizard saves each stage. A run cannot be armed while any is listed.
     */
    notCalibrated: z.array(z.enum(['mocap', 'robot'])).optional(),
    /** Motion capture -> table frame. */
    mocap: calibrationSchema,
    /**
     * The physical table the robot works on, centred on the table-frame origin: the supervisor's
     * workspace comes from it (a scene's table only narrows it and must lie inside it).
     */
    table: z
      .object({
        size: z
          .object({
            x: within(L.tableSize.min, L.tableSize.max, 'm'),
            y: within(L.tableSize.min, L.tableSize.max, 'm'),
          })
          .strict(),
      })
      .strict(),
    robot: z
      .object({
        /** Table -> robot base frame. */
        calibration: calibrationInputSchema,
        /** Pusher tip centre from the tool centre point, tool frame (m). */
        pusherOffset: z.tuple([pusherOffsetComponent, pusherOffsetComponent, pusherOffsetComponent]),
        /**
         * The flange load (contract/flange-load.ts), declared by the control program (set_payload,
         * set_tcp): its mass and centre of gravity, and the TCP the pusher offset is measured from.
         */
        tool: flangeLoadSchema.prefault({}),
        /** How well the table -> base fit matched its points (m); absent when not fitted by the wizard. */
        residual: residualSchema.optional(),
        /** The point pairs of that fit: the residual is recomputed from them on load. */
        points: z.array(basePointSchema).optional(),
      })
      .strict()
      .superRefine((robot, ctx) => {
        const again = baseResidual(robot.calibration, robot.points);
        if (!again) return;
        const problem = robot.residual
          ? residualMismatch(robot.residual, again, CALIBRATION_LIMITS.residualTolerance)
          : `${robot.points!.length} calibration points are kept but no residual`;
        if (problem) ctx.addIssue({ code: 'custom', path: ['residual'], message: problem });
      }),
    safety: z
      .object({
        /** The tool stays this far inside the table edges (m). */
        workspaceMargin: within(L.workspaceMargin.min, L.workspaceMargin.max, 'm').default(0.03),
        /** Allowed heights of the pusher tip above the table (m). */
        heightBand: heightBandSchema.default([0, 0.02]),
        /** Largest acceptable calibration residual, RMS (m). */
        maxCalibrationResidual: within(
          L.maxCalibrationResidual.min,
          L.maxCalibrationResidual.max,
          'm',
        ).default(0.003),
        /** Linear acceleration of commands and holds (m/s^2); safety stops use STOP_DECELERATION. */
        acceleration: within(L.acceleration.min, L.acceleration.max, 'm/s^2').default(0.5),
      })
      .strict()
      .default({
        workspaceMargin: 0.03,
        heightBand: [0, 0.02],
        maxCalibrationResidual: 0.003,
        acceleration: 0.5,
      }),
  })
  .strict()
  .superRefine((setup, ctx) => {
    const { size } = setup.table;
    const margin = setup.safety.workspaceMargin;
    (['x', 'y'] as const).forEach((axis) => {
      if (size[axis] / 2 - margin <= 0)
        ctx.addIssue({
          code: 'custom',
          path: ['safety', 'workspaceMargin'],
          message: `${margin} m leaves no room on the table (table.size.${axis} = ${size[axis]} m)`,
        });
    });
  });

export type Setup = z.infer<typeof setupSchema>;

/**
 * How well a setup's calibrations place the pusher: as well as the worse of its two fits, motion
 * capture -> table and table -> robot base (RMS, m), each recomputed from its stored points, not
 * read from the file. A calibration fitted from no points (the virtual lab's truth, a base
 * calibration written by hand) counts as exact; one that claims a fit but keeps no points cannot
 * be checked: null, which pre-flight refuses.
 */
export function setupResidual(setup: Pick<Setup, 'mocap' | 'robot'>): number | null {
  const fit = (claimed: { pairs: number } | undefined, recomputed: { rms: number } | null) => {
    if (recomputed) return recomputed.rms;
    return !claimed || claimed.pairs === 0 ? 0 : null;
  };
  const mocap = fit(setup.mocap.residual, mocapResidual(setup.mocap));
  const robot = fit(setup.robot.residual, baseResidual(setup.robot.calibration, setup.robot.points));
  return mocap === null || robot === null ? null : Math.max(mocap, robot);
}
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
  return readStoredJson(file, setupSchema, { what: 'lab setup' });
}

/**
 * Null when a scene's table lies on the setup's physical table (both are centred on the table-frame
 * origin), otherwise why not, naming the fields: an edited scene must not widen the workspace.
 */
export function sceneTableProblem(
  setup: Pick<Setup, 'table'>,
  sceneTable: { size: { x: number; y: number } },
): string | null {
  const lab = setup.table.size;
  const scene = sceneTable.size;
  const over = (['x', 'y'] as const).filter((axis) => scene[axis] > lab[axis]);
  if (over.length === 0) return null;
  return over
    .map(
      (axis) =>
        `scene table.size.${axis} = ${scene[axis]} m is larger than the lab table (setup table.size.${axis} = ${lab[axis]} m)`,
    )
    .join('; ');
}
