/** What the Setup view is rendered with in tests: the checklist the core computes and an idle calibration wizard. */
import {
  calibrationWizardSchema,
  type CalibrationWizardState,
  type PreflightReportPayload,
} from '#contract/console-api';
import type { Scene } from '#contract/scene';
import type { RobotState } from '../../src-main/robot/robot-state';
import { preflight } from '../../src-main/safety/preflight';
import { labSetupFor } from './lab-setup';

/**
 * The pre-flight checklist as the core computes it for a running robot in `safetyMode` (its
 * control program playing or not), the gripper holding the pusher or not, and `scene`; no motion
 * capture yet, a small calibration residual.
 */
export function setupChecklist(o: {
  scene: Scene;
  safetyMode: string;
  programPlaying: boolean;
  pusherHeld: boolean;
}): PreflightReportPayload {
  const robot = {
    robotMode: 'RUNNING',
    safetyMode: o.safetyMode,
    runtimeState: o.programPlaying ? 'PLAYING' : 'PAUSED',
    robotStatus: { programRunning: o.programPlaying },
    program: { ackSequence: 0, state: 'ARMED', heartbeat: 0 },
    speedScaling: 1,
  } as RobotState;
  return preflight({
    mocap: undefined,
    robot,
    robotLinkUp: true,
    gripper: o.pusherHeld ? { held: true, detail: 'OBJ 2' } : { held: false, detail: 'not checked' },
    calibration: { residual: 0.001 },
    scene: o.scene,
    maxCalibrationResidual: 0.003,
    setup: labSetupFor(o.scene),
  });
}

/** The calibration wizard with no lab and no pairs, as the core answers the view's first request. */
export function idleCalibrationWizard(): { calibration: CalibrationWizardState } {
  const stage = { pairs: [], fit: null, saved: null };
  return {
    calibration: calibrationWizardSchema.parse({
      lab: null,
      setup: null,
      limit: 0.003,
      capturing: false,
      mocap: stage,
      robot: stage,
      pivots: { bodies: [], saved: null },
    }),
  };
}
