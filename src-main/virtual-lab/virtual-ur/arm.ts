/**
 * The virtual arm's Cartesian motion: the tool centre point moves with a linear velocity that
 * follows speedl / stopl targets under an acceleration limit, as the real controller's Cartesian
 * speed control does, and turns about base z with a yaw rate that follows its own target under an
 * angular acceleration limit (speedl's aRot). Our control program commands no other rotation, so
 * the tool's orientation is its starting orientation turned about base z by the accumulated yaw.
 */
import type { Vec3 } from '#contract/geometry';
import { mulMat, rotationFromVector, rotZ, vectorFromRotation, type Mat3 } from '../../common/rotation';

export type Pose6 = [number, number, number, number, number, number];

/** A yaw-rate target about base z (rad/s) and the angular acceleration to reach it (rad/s^2). */
export interface YawTarget {
  rate: number;
  acceleration: number;
}

export class VirtualArm {
  readonly pose: Pose6;
  readonly velocity: Vec3 = [0, 0, 0];
  /** Angular velocity about base z, rad/s. */
  yawRate = 0;
  /**
   * The teach pendant's speed slider (0..1]: the controller scales every motion's speed by it, so
   * a speedl target is reached at this fraction of its speed (RTDE target_speed_fraction).
   */
  speedScale = 1;
  private readonly target: Vec3 = [0, 0, 0];
  private acceleration = 1;
  private yawTarget: YawTarget = { rate: 0, acceleration: 1 };
  /** Orientation at placement, and the yaw turned about base z since (rad). */
  private startOrientation: Mat3;
  private yaw = 0;

  constructor(initialPose: Pose6) {
    this.pose = [...initialPose];
    this.startOrientation = rotationFromVector(initialPose.slice(3));
  }

  /** Cartesian speed command: ramp towards `v` at most `a` m/s^2, and towards the yaw rate `yaw`. */
  speedl(v: Vec3, a: number, yaw: YawTarget = { rate: 0, acceleration: a }): void {
    this.target[0] = v[0];
    this.target[1] = v[1];
    this.target[2] = v[2];
    this.acceleration = a;
    this.yawTarget = yaw;
  }

  /** Decelerate to rest at `a` m/s^2 (and `aYaw` rad/s^2, `a` by default as in URScript). */
  stopl(a: number, aYaw = a): void {
    this.speedl([0, 0, 0], a, { rate: 0, acceleration: aYaw });
  }

  /** Category-0 stop: power cut, brakes on, the arm is at rest at once. */
  halt(): void {
    this.stopl(1);
    this.velocity.fill(0);
    this.yawRate = 0;
  }

  /** Puts the tool at `pose` at rest, as a person jogging the arm between runs would. */
  placeAt(pose: Pose6): void {
    this.halt();
    this.pose.splice(0, 6, ...pose);
    this.startOrientation = rotationFromVector(pose.slice(3));
    this.yaw = 0;
  }

  get speed(): number {
    return Math.hypot(...this.velocity);
  }

  /** Standing still: no linear and no angular velocity, and none commanded. */
  get atRest(): boolean {
    return (
      this.velocity.every((v) => v === 0) &&
      this.target.every((v) => v === 0) &&
      this.yawRate === 0 &&
      this.yawTarget.rate === 0
    );
  }

  /** Advances one control cycle. */
  step(dt: number): void {
    const k0 = this.speedScale;
    const d: Vec3 = [
      k0 * this.target[0] - this.velocity[0],
      k0 * this.target[1] - this.velocity[1],
      k0 * this.target[2] - this.velocity[2],
    ];
    const norm = Math.hypot(...d);
    const maxChange = this.acceleration * dt;
    const k = norm > maxChange ? maxChange / norm : 1;
    for (let i = 0; i < 3; i++) {
      const before = this.velocity[i]!;
      const after = before + k * d[i]!;
      this.velocity[i] = after;
      // Trapezoidal integration: exact for constant acceleration within the cycle.
      this.pose[i] = this.pose[i]! + 0.5 * (before + after) * dt;
    }
    const before = this.yawRate;
    const dw = k0 * this.yawTarget.rate - before;
    const maxTurn = this.yawTarget.acceleration * dt;
    this.yawRate = Math.abs(dw) > maxTurn ? before + Math.sign(dw) * maxTurn : k0 * this.yawTarget.rate;
    if (this.yawRate === 0 && before === 0) return;
    this.yaw += 0.5 * (before + this.yawRate) * dt;
    const r = vectorFromRotation(mulMat(rotZ(this.yaw), this.startOrientation));
    this.pose[3] = r[0];
    this.pose[4] = r[1];
    this.pose[5] = r[2];
  }
}
