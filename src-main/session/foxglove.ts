/**
 * The Foxglove views of a run, derived from what the recorder records (foxglove-schemas.ts has
 * the schemas):
 *
 * - `foxglove.Log` lines from the event log (console log lines and supervisor decisions, worded
 *   as the console's event log shows them);
 * - `foxglove.FrameTransforms` for the frame tree `table` (root, the scene's frame) -> `mocap`
 *   (the motion-capture frame, turned Z-up) -> `mocap/<rigid body>`, and `table` -> `robot_base`
 *   -> `tool` (the UR5 tool centre point);
 * - `foxglove.SceneUpdate` for the table, the goal region and the obstacles (static), the sliders
 *   and the pusher or the gripper (as measured), and the plan (the pusher's planned path) with the predicted
 *   slider paths of each Parareal iteration.
 *
 * Everything is in the table frame, SI units (m, rad); times are MCAP log times.
 */
import type { ConsoleEvent } from '#contract/console-api';
import { triangulate } from '#contract/polygon';
import type { EndEffector } from '#contract/end-effector/end-effector';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { orientationToZUp, pointToZUp, type UpAxis } from '../calibration/axes';
import { axisAngle, quatConjugate, rotate, type Mat3, type Quat, type Vec3 } from '../common/rotation';
import type { MocapSnapshot } from '../mocap/scene-binding';
import { calibrationTransform } from '../calibration/robot-base';
import type { Setup } from '../calibration/setup-file';
import {
  LogLevel,
  type Color,
  type CubePrimitive,
  type CylinderPrimitive,
  type FoxgloveLog,
  type FrameTransform,
  type LinePrimitive,
  type Pose,
  type SceneEntity,
  type SceneUpdate,
  type TextPrimitive,
  type Time,
} from './foxglove-schemas';
import { robotPoint, stateVector, type LoggedPlannerStep, type NamedState } from './named-state';

/** Frame ids of the frame tree. */
export const FRAMES = {
  table: 'table',
  mocap: 'mocap',
  robotBase: 'robot_base',
  tool: 'tool',
} as const;

/** The frame of a motion-capture rigid body (child of `mocap`). */
export function rigidBodyFrame(body: { id: number; name: string | null | undefined }): string {
  return `mocap/${body.name ?? `body-${body.id}`}`;
}

/** A Foxglove time of an MCAP log time (ns since the epoch). */
export function foxgloveTime(logTimeNs: bigint): Time {
  return { sec: Number(logTimeNs / 1_000_000_000n), nsec: Number(logTimeNs % 1_000_000_000n) };
}

// ---------------------------------------------------------------- log

const levels = { info: LogLevel.INFO, warn: LogLevel.WARNING, error: LogLevel.ERROR } as const;

/** The event-log line of a console event (log lines and supervisor decisions); null for others. */
export function foxgloveLog(event: ConsoleEvent, timestamp: Time): FoxgloveLog | null {
  const line = { timestamp, file: '', line: 0 };
  switch (event.type) {
    case 'log':
      return { ...line, level: levels[event.level], name: event.source, message: event.message };
    case 'supervisor':
      return {
        ...line,
        level: event.decision === 'allow' ? LogLevel.INFO : LogLevel.WARNING,
        name: 'supervisor',
        message: `${event.decision.toUpperCase()}: ${event.reason}`,
      };
    default:
      return null;
  }
}

// ---------------------------------------------------------------- frames

const vec = (v: readonly number[]) => ({ x: v[0]!, y: v[1]!, z: v[2]! });
const quat = (q: Quat) => ({ x: q[0], y: q[1], z: q[2], w: q[3] });

function transform(timestamp: Time, parent: string, child: string, t: Vec3, q: Quat): FrameTransform {
  return {
    timestamp,
    parent_frame_id: parent,
    child_frame_id: child,
    translation: vec(t),
    rotation: quat(q),
  };
}

/** The unit quaternion of a rotation matrix (Shepperd's method). */
export function quatOfMatrix(m: Mat3): Quat {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const trace = a + e + i;
  let q: Quat;
  if (trace > 0) {
    const s = Math.sqrt(trace + 1) * 2;
    q = [(h - f) / s, (c - g) / s, (d - b) / s, s / 4];
  } else if (a > e && a > i) {
    const s = Math.sqrt(1 + a - e - i) * 2;
    q = [s / 4, (b + d) / s, (c + g) / s, (h - f) / s];
  } else if (e > i) {
    const s = Math.sqrt(1 + e - a - i) * 2;
    q = [(b + d) / s, s / 4, (f + h) / s, (c - g) / s];
  } else {
    const s = Math.sqrt(1 + i - a - e) * 2;
    q = [(c + g) / s, (f + h) / s, s / 4, (d - b) / s];
  }
  const n = Math.hypot(...q);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/**
 * The lab's fixed frames from its setup: where the motion-capture frame (Z-up) and the robot base
 * sit in the table frame.
 */
export function setupTransforms(setup: Setup, timestamp: Time): FrameTransform[] {
  const mocap = setup.mocap;
  // p_table = rotate(q, p_mocap) + t: the mocap frame's pose in the table frame.
  const mocapInTable = transform(timestamp, FRAMES.table, FRAMES.mocap, mocap.translation, mocap.rotation);
  // p_base = R p_table + t, so the base sits at -R^T t with orientation R^T in the table frame.
  const { R, t } = calibrationTransform(setup.robot.calibration);
  const q = quatOfMatrix(R);
  const inverse = quatConjugate(q);
  const origin = rotate(inverse, t).map((v) => -v) as Vec3;
  return [mocapInTable, transform(timestamp, FRAMES.table, FRAMES.robotBase, origin, inverse)];
}

/** The tool centre point in the robot base frame, from the UR tool pose (x, y, z, rotation vector). */
export function toolTransform(tcpPose: readonly number[], timestamp: Time): FrameTransform {
  const r: Vec3 = [tcpPose[3]!, tcpPose[4]!, tcpPose[5]!];
  const angle = Math.hypot(...r);
  const q: Quat = angle < 1e-12 ? [0, 0, 0, 1] : axisAngle(r, angle);
  return transform(timestamp, FRAMES.robotBase, FRAMES.tool, [tcpPose[0]!, tcpPose[1]!, tcpPose[2]!], q);
}

/** The tracked rigid bodies of a motion-capture frame, in the Z-up motion-capture frame. */
export function rigidBodyTransforms(frame: MocapSnapshot, up: UpAxis, timestamp: Time): FrameTransform[] {
  return frame.rigidBodies
    .filter((b) => b.trackingValid)
    .map((b) =>
      transform(
        timestamp,
        FRAMES.mocap,
        rigidBodyFrame(b),
        pointToZUp(b.position, up),
        orientationToZUp(b.orientation, up),
      ),
    );
}

// ---------------------------------------------------------------- scene

const COLORS = {
  table: { r: 0.86, g: 0.84, b: 0.78, a: 1 },
  goal: { r: 0.2, g: 0.7, b: 0.3, a: 0.35 },
  obstacle: { r: 0.8, g: 0.25, b: 0.2, a: 1 },
  slider: { r: 0.25, g: 0.45, b: 0.85, a: 1 },
  goalSlider: { r: 0.15, g: 0.3, b: 0.7, a: 1 },
  pusher: { r: 1, g: 0.6, b: 0.1, a: 1 },
  finger: { r: 0.75, g: 0.21, b: 0.05, a: 1 },
  plan: { r: 1, g: 0.45, b: 0, a: 1 },
  label: { r: 0.1, g: 0.1, b: 0.1, a: 1 },
} as const;

/** Table thickness drawn below z = 0, m. */
const TABLE_THICKNESS = 0.02;
/** Height the paths are drawn at, just above the table, m. */
const PATH_HEIGHT = 0.002;

type Shape = Scene['sliders'][number]['shape'];

function entity(timestamp: Time, id: string, parts: Partial<SceneEntity>): SceneEntity {
  return {
    timestamp,
    frame_id: FRAMES.table,
    id,
    lifetime: { sec: 0, nsec: 0 },
    frame_locked: false,
    metadata: [],
    arrows: [],
    cubes: [],
    spheres: [],
    cylinders: [],
    lines: [],
    triangles: [],
    texts: [],
    models: [],
    ...parts,
  };
}

function planarPose(x: number, y: number, z: number, theta = 0): Pose {
  return {
    position: { x, y, z },
    orientation: { x: 0, y: 0, z: Math.sin(theta / 2), w: Math.cos(theta / 2) },
  };
}

/** A body of the scene standing on the table at (x, y, theta). */
function body(
  shape: Shape,
  x: number,
  y: number,
  theta: number,
  color: Color,
): Pick<SceneEntity, 'cubes' | 'cylinders'> {
  const pose = planarPose(x, y, shape.height / 2, theta);
  if (shape.kind === 'box') {
    const cube: CubePrimitive = { pose, size: { x: shape.sizeX, y: shape.sizeY, z: shape.height }, color };
    return { cubes: [cube], cylinders: [] };
  }
  const d = 2 * shape.radius;
  const cylinder: CylinderPrimitive = {
    pose,
    size: { x: d, y: d, z: shape.height },
    bottom_scale: 1,
    top_scale: 1,
    color,
  };
  return { cubes: [], cylinders: [cylinder] };
}

/**
 * The robot as the fine model has it: its tool's parts at configuration q (contract/end-effector:
 * the pusher's cylinder, a gripper's palm and both fingers at its yaw and opening), standing on
 * the table (it never touches it, but its parts are as tall as the objects they push), the parts
 * after the first (a gripper's fingers) darker so the opening reads.
 */
function toolBody(tool: EndEffector, q: ArrayLike<number>): Pick<SceneEntity, 'cubes' | 'cylinders'> {
  const cubes: CubePrimitive[] = [];
  const cylinders: CylinderPrimitive[] = [];
  tool.parts(q).forEach((part, i) => {
    const f = part.footprint;
    const height = part.height ?? tool.height;
    const shape: Shape =
      f.kind === 'disc'
        ? { kind: 'cylinder', radius: f.radius, height }
        : { kind: 'box', sizeX: 2 * f.hx, sizeY: 2 * f.hy, height };
    const b = body(shape, part.x, part.y, part.theta, i === 0 ? COLORS.pusher : COLORS.finger);
    cubes.push(...b.cubes);
    cylinders.push(...b.cylinders);
  });
  return { cubes, cylinders };
}

function label(text: string, x: number, y: number, z: number): TextPrimitive {
  return {
    pose: planarPose(x, y, z),
    billboard: true,
    font_size: 14,
    scale_invariant: true,
    color: COLORS.label,
    text,
  };
}

/**
 * The table top: a slab of its size, or with an outline the outline's polygon (flat triangles at
 * the surface; a slab would cover what the outline leaves out).
 */
function tableTop(table: Scene['table']): Pick<SceneEntity, 'cubes' | 'triangles'> {
  if (!table.outline) {
    const size = { x: table.size.x, y: table.size.y, z: TABLE_THICKNESS };
    return {
      cubes: [{ pose: planarPose(0, 0, -TABLE_THICKNESS / 2), size, color: COLORS.table }],
      triangles: [],
    };
  }
  const outline = table.outline;
  const points = triangulate(outline).flatMap((t) =>
    t.map((i) => ({ x: outline[i]!.x, y: outline[i]!.y, z: 0 })),
  );
  return {
    cubes: [],
    triangles: [{ pose: planarPose(0, 0, 0), points, color: COLORS.table, colors: [], indices: [] }],
  };
}

/** The table, the goal region and the obstacles: what does not move during a run. */
export function tableScene(scene: Scene, timestamp: Time): SceneUpdate {
  const { table, goal } = scene;
  return {
    deletions: [],
    entities: [
      entity(timestamp, 'table', tableTop(table)),
      entity(timestamp, 'goal', {
        cylinders: [
          {
            pose: planarPose(goal.center.x, goal.center.y, 0.0005),
            size: { x: 2 * goal.radius, y: 2 * goal.radius, z: 0.001 },
            bottom_scale: 1,
            top_scale: 1,
            color: COLORS.goal,
          },
        ],
        texts: [label(`goal (${goal.slider})`, goal.center.x, goal.center.y, 0.01)],
      }),
      ...scene.obstacles.map((o) =>
        entity(timestamp, `obstacle/${o.id}`, {
          ...body(o.shape, o.pose.x, o.pose.y, o.pose.theta, COLORS.obstacle),
          texts: [label(o.id, o.pose.x, o.pose.y, o.shape.height + 0.01)],
        }),
      ),
    ],
  };
}

/** The sliders and the pusher where a (measured) state puts them. */
export function objectsScene(scene: Scene, state: NamedState, timestamp: Time): SceneUpdate {
  const entities: SceneEntity[] = [];
  for (const s of state.sliders) {
    const slider = scene.sliders.find((b) => b.id === s.id);
    if (!slider) continue;
    const color = s.id === scene.goal.slider ? COLORS.goalSlider : COLORS.slider;
    entities.push(
      entity(timestamp, `slider/${s.id}`, {
        ...body(slider.shape, s.x, s.y, s.theta, color),
        texts: [label(s.id, s.x, s.y, slider.shape.height + 0.01)],
      }),
    );
  }
  // The robot where the state puts it, when the state is one of the scene's tool.
  const tool = endEffectorOf(scene);
  const x = stateVector(state);
  if (x.length !== layoutForScene(scene).size) return { deletions: [], entities };
  entities.push(entity(timestamp, tool.slots.name, toolBody(tool, x)));
  return { deletions: [], entities };
}

function path(points: { x: number; y: number }[], color: Color, thickness: number): LinePrimitive {
  return {
    type: 0,
    pose: planarPose(0, 0, 0),
    thickness,
    scale_invariant: true,
    points: points.map((p) => ({ x: p.x, y: p.y, z: PATH_HEIGHT })),
    color,
    colors: [],
    indices: [],
  };
}

/** Colour of Parareal iteration k of K (0, the coarse prediction, lightest). */
function iterationColor(k: number, last: number): Color {
  const f = last > 0 ? k / last : 1;
  return { r: 0.75 - 0.35 * f, g: 0.6 - 0.45 * f, b: 0.95 - 0.2 * f, a: 0.5 + 0.5 * f };
}

/**
 * The plan of a planner step: the pusher's planned path (its final prediction), and the slider
 * paths each Parareal iteration predicted. Replaces the plan of the step before (a deletion of
 * every older entity first: iteration counts differ between steps).
 */
export function planScene(step: LoggedPlannerStep, timestamp: Time): SceneUpdate {
  const last = step.predictions.at(-1);
  const trajectory = (states: NamedState[]) => [step.start, ...states];
  const entities: SceneEntity[] = [];
  if (last)
    entities.push(
      entity(timestamp, 'plan/pusher', {
        lines: [path(trajectory(last.states).map(robotPoint), COLORS.plan, 3)],
        metadata: [{ key: 'step', value: String(step.step) }],
      }),
    );
  const lastIteration = Math.max(0, ...step.predictions.map((p) => p.iteration));
  for (const p of step.predictions) {
    const states = trajectory(p.states);
    const color = iterationColor(p.iteration, lastIteration);
    entities.push(
      entity(timestamp, `prediction/k=${p.iteration}`, {
        lines: step.start.sliders.map((_, i) =>
          path(
            states.map((s) => s.sliders[i]!),
            color,
            p.iteration === lastIteration ? 2 : 1,
          ),
        ),
        metadata: [
          { key: 'step', value: String(step.step) },
          { key: 'iteration', value: String(p.iteration) },
        ],
      }),
    );
  }
  return { deletions: [{ timestamp, type: 1, id: '' }], entities };
}
