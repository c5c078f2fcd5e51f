/**
 * Do the two calibrations still agree? The pusher is seen twice: by motion capture (its rigid
 * body, through the motion capture -> table calibration) and by the robot (its tool pose, through
 * the table -> robot base calibration and the pusher offset). A calibration that moved, a bumped
 * camera or a pusher slipped in the fingers shows as a distance between the two. The residuals in
 * the setup file only say how well each calibration fitted when it was made; this says whether
 * it still holds. Checked before arming (pre-flight) and at every motion-capture frame of a run
 * (the supervisor).
 */
import { DRIFT_TIMING } from '#contract/safety-limits';
import type { RobotState } from '../robot/robot-state';
import type { Check } from './preflight';

/**
 * The distance between the pusher seen by motion capture (`seen`, table frame) and the one the
 * robot's tool pose places (m), and the limit it is judged against (m): `maxDrift` plus what the
 * tool's speed covers in DRIFT_TIMING.
 */
export function pusherDrift(
  seen: { x: number; y: number },
  robot: Pick<RobotState, 'tcpPose' | 'tcpSpeed'>,
  frame: { pusherInTable(tcpPose: readonly number[]): { x: number; y: number } },
  maxDrift: number,
): { drift: number; limit: number } {
  const derived = frame.pusherInTable(robot.tcpPose);
  const speed = Math.hypot(robot.tcpSpeed[0]!, robot.tcpSpeed[1]!);
  return {
    drift: Math.hypot(seen.x - derived.x, seen.y - derived.y),
    limit: maxDrift + speed * DRIFT_TIMING,
  };
}

/**
 * What a red agreement names: a pusher body whose pivot is its markers (calibration/pivots.ts), or
 * calibrations that no longer hold.
 */
export const AGREEMENT_FIX =
  "if the pusher's rigid body has its pivot at its markers, not its tip, measure the pusher's pivot (Setup view, calibration wizard: Pivots) and calibrate motion capture -> table again; otherwise the pusher slipped or a camera moved: recalibrate";

/**
 * The pre-flight check of the agreement: green when the two observations of the pusher are within
 * the limit (or the pusher carries no markers, so that the robot alone places it).
 */
export function agreementCheck(
  seen: { x: number; y: number } | null,
  robot: Pick<RobotState, 'tcpPose' | 'tcpSpeed'> | undefined,
  frame: { pusherInTable(tcpPose: readonly number[]): { x: number; y: number } },
  maxDrift: number,
): Check {
  const id = 'calibration-agreement';
  const label = 'Motion capture and robot agree on the pusher';
  if (!robot) return { id, label, ok: false, reason: 'no robot state to compare with' };
  if (!seen) return { id, label, ok: true, reason: 'the pusher carries no markers: the robot places it' };
  const d = pusherDrift(seen, robot, frame, maxDrift);
  const mm = (m: number): string => `${(m * 1000).toFixed(1)} mm`;
  // Written so that NaN fails.
  const ok = d.drift <= d.limit;
  return {
    id,
    label,
    ok,
    reason: `${mm(d.drift)} apart (limit ${mm(d.limit)})`,
    ...(ok ? {} : { fix: AGREEMENT_FIX }),
  };
}
