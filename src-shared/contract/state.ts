/**
 * The one state layout used everywhere (physics, Parareal, planner, logs, UI):
 *
 *   [ robot configuration q_R,
 *     slider_0 x, y, theta, ..., slider_{n-1} x, y, theta,
 *     robot velocities,
 *     slider_0 vx, vy, omega, ..., slider_{n-1} vx, vy, omega ]
 *
 * The robot's entries are its tool's (contract/end-effector: `slots`): the pusher's q_R = (x, y),
 * length 4 + 6n for n sliders, the parallel gripper's (WAFR 2018 Sec. 4) q_R = (x, y, yaw,
 * opening) of its grasp centre with velocities (vx, vy, yaw rate, opening speed), length 8 + 6n.
 * The robot's velocities are also its controls: a control has one entry per robot DOF
 * (`robotDofs`). Positions in metres, angles
 * in radians (counter-clockwise about the table z axis), velocities in m/s and rad/s, all in the
 * table frame.
 *
 * Parareal adds and subtracts states (x = C_new + F_old - C_old). Angles are compared on the
 * circle: differences are wrapped to (-pi, pi] so that 3.13 rad and -3.13 rad differ by 0.02 rad,
 * not by 6.26 rad.
 */
import type { ToolSlots } from './end-effector/end-effector';
import { GRIPPER_OPENING, GRIPPER_SLOTS, GRIPPER_YAW } from './end-effector/parallel-gripper';
import { PUSHER_SLOTS } from './end-effector/pusher';
import { endEffectorOf, type ToolEntries } from './end-effector/registry';

export type State = Float64Array;

/**
 * A control: the robot's joint velocities held for one control duration (WAFR 2018 Sec. 4,
 * u = dq_R/dt), one entry per robot DOF in the state's order (its tool's `slots.velocities`): (vx,
 * vy) m/s for the pusher, (vx, vy, yaw rate, opening speed) in m/s, rad/s, m/s for the gripper.
 */
export type Control = readonly number[];

/**
 * How far apart two states' objects are, or may be: the largest translation (m) and rotation
 * (rad) of any slider between them (Parareal's convergence, a plan's divergence from an
 * observation, the real world's spread).
 */
export interface Tolerance {
  /** m */
  translation: number;
  /** rad */
  rotation: number;
}

export class StateLayout {
  readonly size: number;
  /** Offset of the velocity half of the state. */
  readonly velocityOffset: number;
  /** Indices that hold angles (the tool's, e.g. the gripper's yaw; slider theta); velocities are never wrapped. */
  readonly angleIndices: readonly number[];
  readonly names: readonly string[];
  /** Robot DOFs: 2 for the pusher (x, y), 4 for the gripper (x, y, yaw, opening); the control's length. */
  readonly robotDofs: number;
  /** The tool's word in the state's names ("pusher", "gripper"). */
  readonly robot: string;

  constructor(
    readonly sliderIds: readonly string[],
    readonly tool: ToolSlots = PUSHER_SLOTS,
  ) {
    const n = sliderIds.length;
    const r = tool;
    const robot = r.name;
    this.robot = robot;
    this.robotDofs = r.positions.length;
    this.velocityOffset = this.robotDofs + 3 * n;
    this.size = 2 * this.velocityOffset;
    this.angleIndices = [...tool.angles, ...sliderIds.map((_, i) => this.posOffset(i) + 2)];
    const names = r.positions.map((q) => `${robot}.${q}`);
    for (const id of sliderIds) names.push(`${id}.x`, `${id}.y`, `${id}.theta`);
    names.push(...r.velocities.map((q) => `${robot}.${q}`));
    for (const id of sliderIds) names.push(`${id}.vx`, `${id}.vy`, `${id}.omega`);
    this.names = names;
  }

  get sliderCount(): number {
    return this.sliderIds.length;
  }

  create(): State {
    return new Float64Array(this.size);
  }

  sliderIndex(id: string): number {
    const i = this.sliderIds.indexOf(id);
    if (i < 0) throw new Error(`unknown slider "${id}"`);
    return i;
  }

  /** Offset of slider i's pose (x, y, theta). */
  posOffset(i: number): number {
    return this.robotDofs + 3 * i;
  }

  /** Offset of slider i's velocity (vx, vy, omega). */
  velOffset(i: number): number {
    return this.velocityOffset + this.robotDofs + 3 * i;
  }

  /** The robot's configuration q_R: (x, y) of the pusher, (x, y, yaw, opening) of the gripper. */
  robotConfiguration(s: State): number[] {
    return Array.from(s.subarray(0, this.robotDofs));
  }

  /** The robot's velocities, in the order of its configuration (and of its controls). */
  robotVelocity(s: State): number[] {
    return Array.from(s.subarray(this.velocityOffset, this.velocityOffset + this.robotDofs));
  }

  /** Writes the robot's configuration and velocities (velocities default to rest). */
  setRobot(s: State, q: readonly number[], v: readonly number[] = []): void {
    if (q.length !== this.robotDofs)
      throw new Error(`the ${this.robot} has ${this.robotDofs} DOFs, got ${q.length}`);
    for (let j = 0; j < this.robotDofs; j++) {
      s[j] = q[j]!;
      s[this.velocityOffset + j] = v[j] ?? 0;
    }
  }

  /** The parallel gripper's pose and opening (its layout only). */
  gripperPose(s: State): { x: number; y: number; yaw: number; opening: number } {
    if (this.tool !== GRIPPER_SLOTS) throw new Error(`the robot is a ${this.robot}, not a gripper`);
    return { x: s[0]!, y: s[1]!, yaw: s[GRIPPER_YAW]!, opening: s[GRIPPER_OPENING]! };
  }

  pusherPosition(s: ArrayLike<number>): [number, number] {
    return [s[0]!, s[1]!];
  }

  pusherVelocity(s: State): [number, number] {
    return [s[this.velocityOffset]!, s[this.velocityOffset + 1]!];
  }

  sliderPose(s: ArrayLike<number>, i: number): { x: number; y: number; theta: number } {
    const o = this.posOffset(i);
    return { x: s[o]!, y: s[o + 1]!, theta: s[o + 2]! };
  }

  sliderVelocity(s: State, i: number): { vx: number; vy: number; omega: number } {
    const o = this.velOffset(i);
    return { vx: s[o]!, vy: s[o + 1]!, omega: s[o + 2]! };
  }

  setPusher(s: State, x: number, y: number, vx = 0, vy = 0): void {
    s[0] = x;
    s[1] = y;
    s[this.velocityOffset] = vx;
    s[this.velocityOffset + 1] = vy;
  }

  setSlider(
    s: State,
    i: number,
    pose: { x: number; y: number; theta: number },
    vel = { vx: 0, vy: 0, omega: 0 },
  ): void {
    const p = this.posOffset(i);
    s[p] = pose.x;
    s[p + 1] = pose.y;
    s[p + 2] = pose.theta;
    const v = this.velOffset(i);
    s[v] = vel.vx;
    s[v + 1] = vel.vy;
    s[v + 2] = vel.omega;
  }

  /** a - b, with angle entries wrapped to (-pi, pi]. */
  difference(a: State, b: State, out: State = this.create()): State {
    for (let j = 0; j < this.size; j++) out[j] = a[j]! - b[j]!;
    for (const j of this.angleIndices) out[j] = wrapAngle(out[j]!);
    return out;
  }

  /** a + d where d is a difference; angle entries of the result are wrapped to (-pi, pi]. */
  sum(a: State, d: State, out: State = this.create()): State {
    for (let j = 0; j < this.size; j++) out[j] = a[j]! + d[j]!;
    for (const j of this.angleIndices) out[j] = wrapAngle(out[j]!);
    return out;
  }

  /** Largest change of any slider pose between two states: [metres, radians]. */
  maxSliderPoseChange(a: State, b: State): { translation: number; rotation: number } {
    let translation = 0;
    let rotation = 0;
    for (let i = 0; i < this.sliderCount; i++) {
      const o = this.posOffset(i);
      translation = Math.max(translation, Math.hypot(a[o]! - b[o]!, a[o + 1]! - b[o + 1]!));
      rotation = Math.max(rotation, Math.abs(wrapAngle(a[o + 2]! - b[o + 2]!)));
    }
    return { translation, rotation };
  }

  /** Plain-object view for logs and JSON output: { "pusher.x": ..., ... } ("gripper.x", ... for a gripper). */
  toRecord(s: State): Record<string, number> {
    const r: Record<string, number> = {};
    this.names.forEach((n, j) => (r[n] = s[j]!));
    return r;
  }
}

/** Wraps an angle to (-pi, pi]. Exact for inputs already in range (returns them unchanged). */
export function wrapAngle(a: number): number {
  if (a > -Math.PI && a <= Math.PI) return a;
  const twoPi = 2 * Math.PI;
  let r = a % twoPi;
  if (r <= -Math.PI) r += twoPi;
  else if (r > Math.PI) r -= twoPi;
  return r;
}

export function layoutForScene(scene: ToolEntries & { sliders: readonly { id: string }[] }): StateLayout {
  return new StateLayout(
    scene.sliders.map((s) => s.id),
    endEffectorOf(scene).slots,
  );
}

/** The scene's initial state: everything at rest at its initial pose. */
export function initialState(
  scene: ToolEntries & { sliders: readonly { id: string; pose: { x: number; y: number; theta: number } }[] },
): State {
  const layout = layoutForScene(scene);
  const s = layout.create();
  const q = [...endEffectorOf(scene).start];
  for (const j of layout.tool.angles) q[j] = wrapAngle(q[j]!);
  layout.setRobot(s, q);
  scene.sliders.forEach((sl, i) => layout.setSlider(s, i, sl.pose));
  return s;
}
