/**
 * Pre-flight checks: a real run may only be armed when every one of them is green. Each check says
 * what it looked at and, when red, why, in words an operator can act on.
 */
import { checkResidual } from '../calibration/residual';
import { NO_FRAMES_FIX } from '../mocap/motive-settings';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { tableRegion } from '#contract/table-region';
import type { PlanarPoses } from '../mocap/scene-binding';
import type { RobotState } from '../robot/robot-state';
import { LOCAL_MODE } from '../robot/dashboard';
import { programPlaying } from '../robot/robot-state';
import type { Setup } from '../calibration/setup-file';
import { forceLimitCheck, reachCheck, speedSliderCheck } from './controller-checks';

export interface Check {
  id:
    | 'mocap'
    | 'mocap-interface'
    | 'mocap-axes'
    | 'robot-mode'
    | 'safety-mode'
    | 'program'
    | 'pusher-held'
    | 'gripper-open'
    | 'calibration'
    | 'calibration-agreement'
    | 'scene'
    | 'speed-slider'
    | 'reach'
    | 'force-limit'
    | 'pivots';
  label: string;
  ok: boolean;
  reason: string;
  /** What the operator can do about a red check from the console (the Setup view offers it). */
  action?: CheckAction;
  /** When red, what the operator does about it (the controller checks name one). */
  fix?: string;
}

/**
 * Actions a red check offers: `restart-program` sends the control program again when it is not
 * playing on a robot that runs normally (a previous stop ended it); it moves nothing.
 */
export type CheckAction = 'restart-program';

export interface PreflightReport {
  ok: boolean;
  checks: Check[];
}

/** A problem with the controller that its state alone does not show (lab-link/lab-link.ts). */
export interface ControllerReadiness {
  /** In the operator's words, e.g. Local mode, or a program that did not start after upload. */
  problem: string | undefined;
}

export interface PreflightInputs {
  mocap: PlanarPoses | undefined;
  robot: RobotState | undefined;
  /**
   * The robot link is up now. Its last state outlives a dropped link, and a run armed on it
   * would send its first command into no link.
   */
  robotLinkUp: boolean;
  /**
   * The gripper ready for the run: holding the pusher (OBJ = 2) in a pusher scene; activated and
   * fully open in a gripper scene, where it is the robot.
   */
  gripper: { held: boolean; detail: string } | undefined;
  /**
   * The setup's calibration residual (RMS, m), recomputed from its points (setup-file.ts
   * setupResidual; null when a fit keeps no points to recompute it from), and the stages it has
   * not calibrated yet (a setup written from a template).
   */
  calibration:
    { residual: number | null; notCalibrated?: readonly ('mocap' | 'robot')[] | undefined } | undefined;
  scene: Scene;
  /** Named on the program check when the program does not play. */
  controller?: ControllerReadiness;
  /** Largest acceptable calibration residual (RMS, m). */
  maxCalibrationResidual: number;
  /** The lab setup: the workspace is judged against the UR5's reach through its calibration. */
  setup?: Pick<Setup, 'robot' | 'table' | 'safety'>;
}

export function preflight(i: PreflightInputs): PreflightReport {
  const checks: Check[] = [
    mocapCheck(i.mocap),
    ...robotChecks(i.robotLinkUp ? i.robot : undefined, i.robotLinkUp, i.controller?.problem),
    gripperCheck(i.gripper, i.scene),
    calibrationCheck(i),
    sceneCheck(i),
    ...controllerChecks(i),
  ];
  return { ok: checks.every((c) => c.ok), checks };
}

/** The controller's configuration the planner relies on (safety/controller-checks.ts). */
function controllerChecks(i: PreflightInputs): Check[] {
  const reach: Check = i.setup
    ? reachCheck(i.setup, i.scene)
    : {
        id: 'reach',
        label: "Workspace within the UR5's reach, away from singular zones",
        ok: false,
        reason: 'no lab setup to judge the workspace with',
      };
  const slider = i.robotLinkUp ? speedSliderCheck(i.robot) : speedSliderCheck(undefined, 'robot link down');
  return [slider, reach, forceLimitCheck(i.scene)];
}

function mocapCheck(m: PlanarPoses | undefined): Check {
  const label = 'Motion capture fresh, every bound body tracked';
  if (!m)
    return {
      id: 'mocap',
      label,
      ok: false,
      reason: `no motion-capture frame received: ${NO_FRAMES_FIX}`,
      fix: NO_FRAMES_FIX,
    };
  // A stream that showed a sign of a second sender cannot be trusted, however fresh it looks.
  if (m.suspect) return { id: 'mocap', label, ok: false, reason: `may be spoofed: ${m.suspect.detail}` };
  const bad = [m.pusher, ...m.sliders].filter((b) => b.status !== 'ok' && b.status !== 'unbound');
  if (bad.length === 0)
    return { id: 'mocap', label, ok: true, reason: `frame ${m.frameNumber}, all bodies tracked` };
  return {
    id: 'mocap',
    label,
    ok: false,
    reason: bad.map((b) => `${b.rigidBody ?? 'unnamed body'}: ${b.status}`).join(', '),
  };
}

function robotChecks(r: RobotState | undefined, linkUp: boolean, problem: string | undefined): Check[] {
  const none = linkUp ? 'no robot state received' : 'robot link down';
  const playing = r !== undefined && programPlaying(r);
  return [
    {
      id: 'robot-mode',
      label: 'Robot RUNNING',
      ok: r?.robotMode === 'RUNNING',
      reason: r ? `robot mode ${r.robotMode}` : none,
    },
    {
      id: 'safety-mode',
      label: 'Safety mode NORMAL',
      ok: r?.safetyMode === 'NORMAL',
      reason: r ? `safety mode ${r.safetyMode}` : none,
    },
    {
      id: 'program',
      label: 'Control program playing',
      ok: playing,
      reason: !r
        ? none
        : !playing && problem
          ? `${problem}; runtime ${r.runtimeState}, program ${r.program.state}`
          : `runtime ${r.runtimeState}, program ${r.program.state}`,
      // Restartable from the console on a robot that runs normally in Remote Control; a stopped
      // robot is recovered first, a pendant in Local mode is the operator's to switch.
      ...(r && !playing && r.robotMode === 'RUNNING' && r.safetyMode === 'NORMAL' && problem !== LOCAL_MODE
        ? { action: 'restart-program' as const }
        : {}),
    },
  ];
}

function gripperCheck(g: PreflightInputs['gripper'], scene: Scene): Check {
  const [id, label] = endEffectorOf(scene).fingers
    ? (['gripper-open', 'Gripper activated and fully open'] as const)
    : (['pusher-held', 'Pusher held by the gripper'] as const);
  if (!g) return { id, label, ok: false, reason: 'no gripper status' };
  return { id, label, ok: g.held, reason: g.detail };
}

function calibrationCheck(i: PreflightInputs): Check {
  const label = 'Calibration loaded, small residual';
  if (!i.calibration)
    return { id: 'calibration', label, ok: false, reason: 'no calibration loaded for this setup' };
  const missing = i.calibration.notCalibrated ?? [];
  if (missing.length > 0) {
    const words = { mocap: 'motion capture -> table', robot: 'table -> robot base' } as const;
    return {
      id: 'calibration',
      label,
      ok: false,
      reason: `setup from a template: calibrate ${missing.map((s) => words[s]).join(' and ')} (Setup view, Calibration wizard)`,
    };
  }
  return { id: 'calibration', label, ...checkResidual(i.calibration.residual, i.maxCalibrationResidual) };
}

function sceneCheck(i: PreflightInputs): Check {
  const label = 'Scene valid: goal and objects on the table';
  const { scene, mocap } = i;
  const table = tableRegion(scene.table);
  const on = (x: number, y: number): boolean => table.contains(x, y);
  const problems: string[] = [];
  if (!on(scene.goal.center.x, scene.goal.center.y)) problems.push('goal is off the table');
  for (const s of mocap?.sliders ?? []) {
    if (s.pose && !on(s.pose.x, s.pose.y)) problems.push(`${s.id} is off the table`);
  }
  return {
    id: 'scene',
    label,
    ok: problems.length === 0,
    reason: problems.join(', ') || `${scene.name}: ok`,
  };
}
