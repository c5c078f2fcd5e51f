/**
 * The virtual arm's Cartesian motion: the tool centre point moves with a linear velocity that
 * follows speedl / stopl targets under an acceleration limit, as the real controller's Cartesian
 * speed control does. Orientation is held (our control program never commands rotation), so the
 * pose's rotation vector stays where it started.
 */
import type { Vec3 } from '../../contract/geometry';

export type Pose6 = [number, number, number, number, number, number];

export class VirtualArm {
  readonly pose: Pose6;
  readonly velocity: Vec3 = [0, 0, 0];
  private readonly target: Vec3 = [0, 0, 0];
  private acceleration = 1;

  constructor(initialPose: Pose6) {
    this.pose = [...initialPose];
  }

  /** Cartesian speed command: ramp towards `v` at most `a` m/s^2. */
  speedl(v: Vec3, a: number): void {
    this.target[0] = v[0];
    this.target[1] = v[1];
    this.target[2] = v[2];
    this.acceleration = a;
  }

  /** Decelerate to rest at `a` m/s^2. */
  stopl(a: number): void {
    this.speedl([0, 0, 0], a);
  }

  /** Category-0 stop: power cut, brakes on, the arm is at rest at once. */
  halt(): void {
    this.stopl(1);
    this.velocity.fill(0);
  }

  /** Puts the tool at `pose` at rest, as a person jogging the arm between runs would. */
  placeAt(pose: Pose6): void {
    this.halt();
    this.pose.splice(0, 6, ...pose);
  }

  get speed(): number {
    return Math.hypot(...this.velocity);
  }

  /** Advances one control cycle. */
  step(dt: number): void {
    const d: Vec3 = [
      this.target[0] - this.velocity[0],
      this.target[1] - this.velocity[1],
      this.target[2] - this.velocity[2],
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
  }
}
