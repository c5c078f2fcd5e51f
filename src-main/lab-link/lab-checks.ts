/**
 * The pre-flight checklist of a lab as it stands now, for a scene: the one list the run judges
 * before and after Arm (run/supervised-run.ts) and the Setup view shows between runs
 * (lab-status.ts). Which of its checks must be green before Arm, and which are judged after it,
 * is contract/arm-readiness.ts's rule.
 */
import type { Scene } from '#contract/scene';
import { setupResidual } from '../calibration/setup-file';
import { NO_FRAMES_FIX } from '../mocap/motive-settings';
import { judgeStreamedAxes } from '../mocap/streamed-axes';
import { RobotAdapter } from '../robot/adapter';
import { agreementCheck } from '../safety/calibration-agreement';
import { pivotCheck } from '../safety/pivot-check';
import { preflight, type Check, type PreflightReport } from '../safety/preflight';
import { MAX_CALIBRATION_DRIFT } from '#contract/safety-limits';
import type { LabLink } from './lab-link';

/**
 * Resolves once the messages the safety thread has posted so far are applied here. The devices'
 * states reach this thread as messages; after a busy spell (a request handled, a log written)
 * they wait in its queue, and the freshness checks would judge the last state applied, older than
 * the last that arrived. Worker messages are taken in the event loop's poll phase, which runs
 * before setImmediate's.
 */
export function streamsCaughtUp(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function labChecks(link: LabLink, scene: Scene): PreflightReport {
  const { setup } = link;
  const poses = link.poses();
  const robot = link.robot.latest;
  const adapter = new RobotAdapter({
    calibration: setup.robot.calibration,
    pusherOffset: setup.robot.pusherOffset,
  });
  const frame = {
    pusherInTable: (p: readonly number[]) => adapter.pusherPosition(p),
    tableToBase: (vx: number, vy: number) => adapter.toolVelocity(vx, vy),
  };
  const r = preflight({
    mocap: poses,
    robot,
    robotLinkUp: link.robot.linkUp,
    gripper: link.gripperStatus(),
    controller: link.controllerReadiness(),
    calibration: { residual: setupResidual(setup), notCalibrated: setup.notCalibrated },
    scene,
    maxCalibrationResidual: setup.safety.maxCalibrationResidual,
    setup,
  });
  const [mocap, ...rest] = r.checks;
  const checks = [
    mocap!,
    ...mocapStreamChecks(link),
    ...rest,
    pivotCheck(scene, setup.mocap.pivots),
    agreementCheck(poses?.pusher.pose ?? null, robot, frame, MAX_CALIBRATION_DRIFT),
  ];
  return { ok: checks.every((c) => c.ok), checks };
}

/**
 * How motion capture arrives: on which interface (chosen from the route to Motive, judged at
 * connect), and in which axes and units against the setup's (mocap/streamed-axes.ts).
 */
export function mocapStreamChecks(
  link: Pick<LabLink, 'mocapInterface' | 'streamedBodies' | 'setup'>,
): Check[] {
  const iface = link.mocapInterface;
  const interfaceCheck: Check = {
    id: 'mocap-interface',
    label: 'Motion capture heard on the interface of the route to Motive',
    ok: iface !== undefined && iface.problem === undefined,
    reason: iface ? (iface.problem ?? iface.text) : 'not judged',
    ...(iface?.fix ? { fix: iface.fix } : {}),
  };
  const label = "Motive's up axis and units as the setup's";
  const bodies = link.streamedBodies();
  const axes: Check = bodies
    ? { id: 'mocap-axes', label, ...judgeStreamedAxes(bodies, link.setup.mocap.upAxis) }
    : { id: 'mocap-axes', label, ok: false, reason: 'no motion-capture frame received', fix: NO_FRAMES_FIX };
  return [interfaceCheck, axes];
}
