/**
 * A lab link as the console shows it and a session log records it (contract/lab-view.ts): which
 * lab it is by its devices' own words, the scene it was opened on, and where its setup puts the
 * table, the workspace, the robot base and the motion-capture frame on the table.
 */
import { labKindOf, type LabSetupView, type LabView, type PlanarFrame } from '../contract/lab-view';
import { rotate } from '../mocap/rotation';
import { rotZ, type Mat3 } from '../robot/adapter';
import type { Setup } from '../setup/setup-file';
import type { LabLink } from './lab-link';

/** The view of a connected link; `description` says where the lab is, in words. */
export function labView(link: LabLink, description: string): LabView {
  const { robot, mocap } = link.identity;
  return {
    kind: labKindOf(robot, mocap),
    description,
    connected: true,
    robot,
    mocap,
    scene: link.scene.name,
    setup: setupView(link.setup),
  };
}

/** The setup's frames on the table (table frame, m and rad). */
export function setupView(setup: Setup): LabSetupView {
  return {
    name: setup.name,
    table: { x: setup.table.size.x, y: setup.table.size.y },
    workspaceMargin: setup.safety.workspaceMargin,
    robotBase: robotBaseOnTable(setup.robot.calibration),
    mocapFrame: mocapFrameOnTable(setup.mocap.rotation, setup.mocap.translation),
  };
}

/**
 * The robot base on the table: the calibration maps table to base, p_base = R p_table + t, so the
 * base origin is -R^T t in the table frame and the base x axis is R^T x (its first row of R).
 */
export function robotBaseOnTable(c: Setup['robot']['calibration']): PlanarFrame {
  const [R, t]: [Mat3, readonly number[]] = 'yaw' in c ? [rotZ(c.yaw), c.offset] : [c.R, c.t];
  const origin = [0, 1, 2].map((i) => -(R[0]![i]! * t[0]! + R[1]![i]! * t[1]! + R[2]![i]! * t[2]!));
  return { x: origin[0]!, y: origin[1]!, yaw: Math.atan2(R[0]![1]!, R[0]![0]!) };
}

/** The motion-capture frame (Z-up) on the table: p_table = rotate(q, p) + translation. */
export function mocapFrameOnTable(
  rotation: [number, number, number, number],
  translation: [number, number, number],
): PlanarFrame {
  const x = rotate(rotation, [1, 0, 0]);
  return { x: translation[0], y: translation[1], yaw: Math.atan2(x[1], x[0]) };
}
