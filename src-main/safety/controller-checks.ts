/**
 * Commissioning checks of the controller configuration the planner relies on, judged before
 * arming (pre-flight) and by `parapush lab check`: the speed slider, the workspace against the
 * UR5's reach and singular zones, and the task's objects against the controller's force limit.
 * Each red check names its fix.
 */
import { robotStart } from '#contract/end-effector/registry';
import { boundingRadius, type Scene } from '#contract/scene';
import type { Vec3 } from '#contract/geometry';
import { NORMAL_PRESET_FORCE_LIMIT } from '#contract/flange-load';
import type { Setup } from '../calibration/setup-file';
import { RobotAdapter } from '../robot/adapter';
import type { RobotState } from '../robot/robot-state';
import { mulVec, rotationFromVector } from '../common/rotation';
import { workspaceFor } from './workspace';

/** A commissioning check's result: the pre-flight check's fields and, when red, the fix. */
export interface ControllerCheck {
  id: 'speed-slider' | 'reach' | 'force-limit';
  label: string;
  ok: boolean;
  reason: string;
  fix?: string;
}

/**
 * Below this the slider is not at 100 %: RTDE reports the fraction as a double, and a slider
 * short of 100 % by a step of the pendant's is at most 0.99.
 */
const FULL_SPEED = 0.999;

export const SPEED_SLIDER_FIX = 'set the speed slider on the teach pendant to 100 %';

/**
 * The speed slider scales every motion of the arm below what was planned (RTDE `speed_scaling`,
 * which UR's scaled controllers take as the slider's value): anything but 100 % is refused.
 */
export function speedSliderCheck(
  robot: RobotState | undefined,
  none = 'no robot state received',
): ControllerCheck {
  const label = 'Speed slider at 100 %';
  if (!robot) return { id: 'speed-slider', label, ok: false, reason: none };
  const percent = (robot.speedScaling * 100).toFixed(0);
  if (robot.speedScaling >= FULL_SPEED)
    return { id: 'speed-slider', label, ok: true, reason: `speed scaling ${percent} %` };
  return {
    id: 'speed-slider',
    label,
    ok: false,
    reason: `speed scaling ${percent} %: every motion would run slower than planned`,
    fix: SPEED_SLIDER_FIX,
  };
}

/**
 * The UR5's kinematic limits the workspace is judged against (m). Reach 850 mm: UR5 technical
 * specifications. Shoulder height d1 = 89.159 mm and shoulder offset d4 = 109.15 mm: UR's DH
 * parameters of the UR5. Near the outer reach the elbow stretches into its singularity, and with
 * the wrist close to the base axis the shoulder is singular (UR user manual: avoid the cylinder
 * above and below the base and the boundary of the reach), so the flange must stay within the
 * reach less REACH_MARGIN of the shoulder and more than SHOULDER_RADIUS from the base axis.
 */
export const UR5_KINEMATICS = {
  reach: 0.85,
  shoulderHeight: 0.089159,
  shoulderOffset: 0.10915,
  /** Kept from the outer reach: 50 mm, the elbow's last few degrees before stretching out. */
  reachMargin: 0.05,
  /** Radius kept from the base axis: the shoulder offset plus 50 mm. */
  shoulderRadius: 0.10915 + 0.05,
} as const;

export const REACH_FIX =
  "move the table (or the robot) so the task's region is within reach and clear of the base axis, then calibrate again; or move the scene's objects and goal";

/** A tool that points straight down (rotation pi about base y), as the lab holds the pusher. */
const TOOL_DOWN: Vec3 = [0, Math.PI, 0];

type ReachSetup = Pick<Setup, 'robot' | 'table' | 'safety'>;

/** Room kept around the task's points for the pusher to get behind an object, m. */
const PUSH_ROOM = 0.05;

/**
 * The part of the workspace a task works in (table frame): the robot's start, every object's start
 * and the goal, grown by the largest object's bounding radius and PUSH_ROOM, within the workspace
 * (the scene's table less the setup's margin). A scene's table is the planner's world and may be
 * larger than a UR5 reaches (isrr-obstacle's is 1 x 0.8 m, whose far corners no UR5 beside it
 * reaches); what must be reachable is where the task takes the tool.
 */
export function taskRegion(
  scene: Scene,
  ws: { halfX: number; halfY: number },
): { x: [number, number]; y: [number, number] } {
  const points = [robotStart(scene), ...scene.sliders.map((s) => s.pose), scene.goal.center];
  const grow = Math.max(...scene.sliders.map((s) => boundingRadius(s.shape))) + PUSH_ROOM;
  const clampX = (v: number): number => Math.min(Math.max(v, -ws.halfX), ws.halfX);
  const clampY = (v: number): number => Math.min(Math.max(v, -ws.halfY), ws.halfY);
  return {
    x: [
      clampX(Math.min(...points.map((p) => p.x)) - grow),
      clampX(Math.max(...points.map((p) => p.x)) + grow),
    ],
    y: [
      clampY(Math.min(...points.map((p) => p.y)) - grow),
      clampY(Math.max(...points.map((p) => p.y)) + grow),
    ],
  };
}

/**
 * Every corner of the task's region (taskRegion), at the lowest and highest tool height the setup
 * allows, puts the flange within the UR5's reach, and no point of it comes within the shoulder's
 * singular cylinder around the base axis.
 */
export function reachCheck(setup: ReachSetup, scene: Scene): ControllerCheck {
  const label = "Workspace within the UR5's reach, away from singular zones";
  const K = UR5_KINEMATICS;
  const fix = REACH_FIX;
  let ws;
  try {
    ws = workspaceFor(scene.table, setup.safety.workspaceMargin, setup.safety.heightBand);
  } catch (err) {
    return { id: 'reach', label, ok: false, reason: (err as Error).message, fix };
  }
  const adapter = new RobotAdapter({
    calibration: setup.robot.calibration,
    pusherOffset: setup.robot.pusherOffset,
  });
  const tcp = setup.robot.tool.tcp;
  const flangeFromTcp = mulVec(rotationFromVector(TOOL_DOWN), [tcp[0], tcp[1], tcp[2]]);
  const flange = (x: number, y: number, z: number): Vec3 => {
    const p = adapter.toolPosition({ x, y, z }, TOOL_DOWN);
    return [p[0] - flangeFromTcp[0], p[1] - flangeFromTcp[1], p[2] - flangeFromTcp[2]];
  };
  const region = taskRegion(scene, ws);
  const problems: string[] = [];
  let farthest = 0;
  for (const x of region.x)
    for (const y of region.y)
      for (const z of [ws.zMin, ws.zMax]) {
        const f = flange(x, y, z);
        const d = Math.hypot(f[0], f[1], f[2] - K.shoulderHeight);
        farthest = Math.max(farthest, d);
        const corner = `task corner (${mm(x)}, ${mm(y)}) mm`;
        if (d > K.reach - K.reachMargin && !problems.some((p) => p.startsWith(corner)))
          problems.push(
            `${corner} is ${mm(d)} mm from the shoulder, past ${mm(K.reach - K.reachMargin)} mm (reach ${mm(K.reach)} mm less ${mm(K.reachMargin)} mm)`,
          );
      }
  // The workspace is a rectangle in the table plane and the flange a fixed shift of the pusher:
  // its nearest point to the base axis is the point over the axis clamped into the rectangle.
  const near = nearestToBaseAxis(flange, region, ws.zMin);
  if (near.distance < K.shoulderRadius)
    problems.push(
      `the task's region comes within ${mm(near.distance)} mm of the base axis, inside the shoulder's singular cylinder (${mm(K.shoulderRadius)} mm)`,
    );
  if (problems.length > 0) return { id: 'reach', label, ok: false, reason: problems.join('; '), fix };
  return {
    id: 'reach',
    label,
    ok: true,
    reason: `farthest corner ${mm(farthest)} mm of ${mm(K.reach - K.reachMargin)} mm; nearest ${mm(near.distance)} mm from the base axis`,
  };
}

/** The workspace point whose flange is nearest the base axis (table frame), and that distance. */
function nearestToBaseAxis(
  flange: (x: number, y: number, z: number) => Vec3,
  region: { x: [number, number]; y: [number, number] },
  z: number,
): { distance: number } {
  // The flange is the pusher turned into the base frame and moved by a constant vector: an
  // affine map of the table plane, inverted for the point whose flange is on the base axis.
  const o = flange(0, 0, z);
  const ex = flange(1, 0, z);
  const ey = flange(0, 1, z);
  // Flange xy = o + x (ex - o) + y (ey - o): solve for the table point over the axis.
  const a = ex[0] - o[0];
  const b = ey[0] - o[0];
  const c = ex[1] - o[1];
  const d = ey[1] - o[1];
  const det = a * d - b * c;
  const x0 = (-o[0] * d + o[1] * b) / det;
  const y0 = (-o[1] * a + o[0] * c) / det;
  const x = Math.min(Math.max(x0, region.x[0]), region.x[1]);
  const y = Math.min(Math.max(y0, region.y[0]), region.y[1]);
  const f = flange(x, y, z);
  return { distance: Math.hypot(f[0], f[1]) };
}

/**
 * Share of the force limit a push may take at rest: half. The rest is for accelerating the
 * object, pushing it off-centre, and the controller's force estimate, which is not exact.
 */
export const FORCE_MARGIN = 0.5;

const G = 9.81;

export const FORCE_LIMIT_FIX =
  "use a lighter object or a smoother surface, and give the scene its real mass and friction; the Normal safety preset's tool force limit stays as it is";

/**
 * Each object of the task must slide under the pusher within the controller's force limit: its
 * sliding friction, friction x mass x g (the larger of the object's and the table's coefficient,
 * as the lab's physics combines them), at most FORCE_MARGIN of the limit.
 */
export function forceLimitCheck(scene: Scene, limit = NORMAL_PRESET_FORCE_LIMIT): ControllerCheck {
  const label = "Objects pushable within the controller's force limit";
  const allowed = limit * FORCE_MARGIN;
  const tableFriction = scene.table.friction ?? 0;
  const needs = scene.sliders.map((s) => ({
    id: s.id,
    force: Math.max(s.friction, tableFriction) * s.mass * G,
  }));
  const heavy = needs.filter((n) => n.force > allowed);
  const most = Math.max(...needs.map((n) => n.force));
  if (heavy.length === 0)
    return {
      id: 'force-limit',
      label,
      ok: true,
      reason: `largest sliding force ${most.toFixed(1)} N of ${allowed.toFixed(0)} N (half the ${limit} N limit)`,
    };
  return {
    id: 'force-limit',
    label,
    ok: false,
    reason: heavy
      .map(
        (n) =>
          `${n.id} needs ${n.force.toFixed(0)} N to slide, over ${allowed.toFixed(0)} N (half the ${limit} N tool force limit): the controller would stop in a protective stop`,
      )
      .join('; '),
    fix: FORCE_LIMIT_FIX,
  };
}

function mm(m: number): string {
  return (m * 1000).toFixed(0);
}
