/**
 * A lab link as the console shows it and a session log records it (contract/lab-view.ts): which
 * lab it is by its devices' own words, the scene it was opened on, and where its setup puts the
 * table, the workspace, the robot base and the motion-capture frame on the table.
 */
import { labKindOf, type LabSetupView, type LabView } from '#contract/lab-view';
import { mocapFrameOnTable } from '../calibration/mocap-table';
import { robotBaseOnTable } from '../calibration/robot-base';
import type { Setup } from '../calibration/setup-file';
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
    mocapFrame: mocapFrameOnTable(setup.mocap),
  };
}
