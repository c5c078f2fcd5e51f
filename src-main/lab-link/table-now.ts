/**
 * The table as the lab shows it between runs, for the console's table view and the jog's check:
 * the link's one state estimate (mocap/state-estimator.ts), with a pusher that carries no markers
 * placed where the robot holds it, as a run observes it (run/supervised-run.ts), and the robot
 * base <-> table frame of the setup, to turn a jog along the base axes into a path on the table.
 */
import { layoutForScene, type StateLayout } from '#contract/state';
import type { TableEstimate } from '../mocap/state-estimator';
import { RobotAdapter } from '../robot/adapter';
import { mulTransposeVec } from '../common/rotation';
import type { LabLink } from './lab-link';

export interface TableNow {
  layout: StateLayout;
  estimate: TableEstimate;
  /** Where the pusher (or a gripper's grasp centre) is on the table (m), or null when unknown. */
  pusher: { x: number; y: number } | null;
  /** A displacement along the robot base axes (m) as one on the table (m). */
  toTable(dx: number, dy: number): { x: number; y: number };
}

/** Adapters by setup: a setup changes only when the wizard saves one. */
const adapters = new WeakMap<object, RobotAdapter>();

function adapterFor(link: Pick<LabLink, 'setup'>): RobotAdapter {
  const setup = link.setup;
  let adapter = adapters.get(setup);
  if (!adapter) {
    adapter = new RobotAdapter({
      calibration: setup.robot.calibration,
      pusherOffset: setup.robot.pusherOffset,
    });
    adapters.set(setup, adapter);
  }
  return adapter;
}

export function tableNow(link: Pick<LabLink, 'setup' | 'scene' | 'robot' | 'estimate'>): TableNow {
  const adapter = adapterFor(link);
  const fromRobot = (): { x: number; y: number; yaw: number } | undefined => {
    const tcp = link.robot.latest?.tcpPose;
    return tcp ? { ...adapter.pusherPosition(tcp), yaw: adapter.toolYaw(tcp) } : undefined;
  };
  const estimate = link.estimate(fromRobot);
  const seen = estimate.poses?.pusher.pose;
  const robot = seen ? { x: seen.x, y: seen.y } : (fromRobot() ?? null);
  return {
    layout: layoutForScene(link.scene),
    estimate,
    pusher: robot && { x: robot.x, y: robot.y },
    toTable(dx, dy) {
      const d = mulTransposeVec(adapter.R, [dx, dy, 0]);
      return { x: d[0], y: d[1] };
    },
  };
}

/** The table now as the console's table view takes it: every body placed, or null. */
export function tableReading(
  link: Pick<LabLink, 'setup' | 'scene' | 'robot' | 'estimate'>,
): { sliderIds: string[]; state: number[] } | null {
  const now = tableNow(link);
  const state = now.estimate.state;
  return state ? { sliderIds: [...now.layout.sliderIds], state: Array.from(state) } : null;
}
