/**
 * The end effector (the tool on the arm that touches the objects) as one type: what the state
 * layout, the physics, the reach bound, the planner, the supervisor, the renderer and the CLI ask
 * of it. A scene names its tool (contract/scene.ts: `pusher`, `gripper` or a registered `tool`);
 * `endEffectorOf` (registry.ts) reads it and returns the tool, and nothing else looks at which
 * tool a scene has.
 *
 * Words: the "finger device" is the Robotiq on the arm (it holds the pusher, or is the parallel
 * gripper's fingers: robot/finger-device.ts); the "tool" is what this file describes.
 *
 * Frame: the tool's reference point (the pusher's axis, the gripper's grasp centre) in the table
 * plane, x forward along its yaw.
 */
import type { Gripper, Point } from '../scene';

/** A body seen from above: a disc or a rectangle about its centre (physics/geometry2d.ts Footprint). */
export type ToolFootprint = { kind: 'disc'; radius: number } | { kind: 'rect'; hx: number; hy: number };

/** A part of the tool placed in the table frame (physics/geometry2d.ts Placed). */
export interface ToolPart {
  footprint: ToolFootprint;
  x: number;
  y: number;
  theta: number;
  /** Its height (m) where it differs from the tool's (a gripper's palm), for 3D views. */
  height?: number;
}

/** The tool's entries in the state (contract/state.ts): the configuration q_R and its velocities. */
export interface ToolSlots {
  /** Its word in the state's names ("pusher.x") and logs. */
  name: string;
  /** Names of q_R's entries; its length is the tool's DOFs and a control's length. */
  positions: readonly string[];
  /** Names of the velocities, in q_R's order (the controls). */
  velocities: readonly string[];
  /** Entries of q_R that are angles (wrapped to (-pi, pi]). */
  angles: readonly number[];
  /** Entry of q_R holding its yaw; absent for a tool that keeps its orientation. */
  yaw?: number;
  /** Entry of q_R holding the gap between its fingers; absent for a tool without fingers. */
  opening?: number;
}

/** The robot's speed limits: translational, and per turning or finger DOF those of its tool. */
export interface ControlLimits {
  /** m/s */
  maxSpeed: number;
  /** rad/s, a tool that turns */
  maxYawRate?: number;
  /** m/s, a tool with fingers */
  maxOpeningSpeed?: number;
}

/** The scene's limits as the tool reads them (contract/scene.ts limitsSchema). */
export interface SceneLimits {
  maxPusherSpeed: number;
  maxYawRate?: number | undefined;
  maxOpeningSpeed?: number | undefined;
}

/** The tool's lines of the scene's MJCF (physics/mjcf.ts puts them in place). */
export interface ToolModel {
  /** Worldbody lines: the tool's bodies, joints and geoms. */
  body: string[];
  /** Equality constraint lines (fingers moving together). */
  equality: string[];
  /** Actuator lines, one or more per DOF in q_R's order (`joints`). */
  actuators: string[];
}

export interface EndEffector {
  /** The registry's name of its kind: "pusher", "parallel-gripper", ... */
  readonly kind: string;
  /**
   * Its title, the one name the operator reads for it (the table view, the scene editor, CLI
   * output): "Cylindrical pusher", "Parallel gripper".
   */
  readonly title: string;
  /** Its entries in the state. */
  readonly slots: ToolSlots;
  /**
   * Its control inputs for people (task-file checks, CLI messages), in a control's order, each
   * with the limit that bounds it alone (x and y are bounded together by the speed).
   */
  readonly inputs: readonly {
    name: string;
    unit: string;
    limit?: 'maxYawRate' | 'maxOpeningSpeed';
  }[];
  /** Its configuration at the scene's start (angles as written, unwrapped). */
  readonly start: readonly number[];
  /** Its motion-capture rigid body's name, when the scene gives one. */
  readonly rigidBody: string | undefined;
  /** Height of its lowest body (m): it moves that high plus a clearance above the table. */
  readonly height: number;
  /** Its parts seen from above at configuration q, in the table frame (collisions, drawing). */
  parts(q: ArrayLike<number>): ToolPart[];
  /**
   * Its widest body about its reference point as one footprint, centred `offset` ahead of the
   * reference point along its yaw (the reach bound, physics/reach.ts).
   */
  readonly envelope: { footprint: ToolFootprint; offset: number };
  /**
   * Its widest body's corners in its own frame (m), which the safety checks keep in the workspace
   * and away from obstacles; empty for a disc, which they take as its point and radius.
   */
  readonly outline: readonly Point[];
  /** The fastest any point of it moves at velocity v (q_R's order): m/s. */
  pointSpeed(v: ArrayLike<number>): number;
  /** Per DOF: what turns a process-noise value (m/s) into the DOF's units (physics/fine-model.ts). */
  readonly noiseScales: readonly number[];
  /**
   * Per DOF: how fast a unit of its velocity moves a point of the tool (m/s), for the noise's
   * |u| (planning/control-space.ts controlMagnitude).
   */
  readonly speedScales: readonly number[];
  /** Its speed limits from the scene's. */
  controlLimits(limits: SceneLimits): ControlLimits;
  /** Its MJCF lines; `clearance` lifts it above the table, `timestep` sets the gains. */
  model(o: { clearance: number; timestep: number }): ToolModel;
  /** Per DOF of q_R: the MJCF joints that carry it, each holding an equal share. */
  readonly joints: readonly (readonly string[])[];
  /**
   * The radius of a cylindrical pusher, which the coarse models (analytical, learned) model;
   * undefined for a tool they do not model (it predicts with the fine model alone).
   */
  readonly discRadius: number | undefined;
  /** A parallel gripper's dimensions (grasping: planning/grasp.ts); undefined for a tool without fingers. */
  readonly fingers: Gripper | undefined;
}

/**
 * A kind of tool: how a scene's `tool` entry of this kind is checked and made into a tool. The
 * built-in pusher and parallel gripper are read from the scene's own `pusher` and `gripper`
 * entries (registry.ts); another kind registers itself (registerEndEffector) and is named by a
 * scene's `tool: { kind, ... }`.
 */
export interface EndEffectorKind<P = unknown> {
  kind: string;
  /** One line for lists of tools. */
  description: string;
  /** Checks a scene's tool entry (without its kind); throws with what is wrong. */
  parse(entry: unknown): P;
  create(params: P): EndEffector;
  /** The entry with the tool's start moved to `at` in the table plane (the console's scene edits). */
  moveStart(params: P, at: Point): P;
}
