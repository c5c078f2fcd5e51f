/**
 * Robot adapter: between the planner's world (pusher position and velocity in the table frame) and
 * the robot's (tool pose and twist in the base frame), through the table -> base calibration
 * (calibration/robot-base.ts: p_base = R p_table + t, R a rotation about z) and the pusher's fixed
 * offset from the tool centre point, given in the tool frame.
 *
 * A gripper is the same tool point (its grasp centre, the setup's `pusherOffset` from the TCP) that
 * also turns: its forward direction is the tool's x axis seen from above, and the program turns the
 * tool about base z only (robot/control-program.ts), so the table-frame yaw rate is the tool's.
 */
import type { Vec3 } from '#contract/geometry';
import { tableToBase, type CalibrationInput } from '../calibration/robot-base';
import { cross, mulTransposeVec, mulVec, rotationFromVector, type Mat3 } from '../common/rotation';

export interface AdapterOptions {
  calibration: CalibrationInput;
  /** Pusher reference point (e.g. the centre of its tip) from the tool centre point, tool frame, m. */
  pusherOffset: Vec3;
  /** Largest accepted angle between the table normal and base z, rad. */
  maxTilt?: number;
}

export class RobotAdapter {
  /** Table -> base rotation, a pure rotation about z (the tilt is measured and bounded). */
  readonly R: Mat3;
  readonly t: Vec3;
  readonly yaw: number;
  /** Angle between the calibrated table normal and base z, rad. */
  readonly tilt: number;
  readonly pusherOffset: Vec3;

  constructor(options: AdapterOptions) {
    const base = tableToBase(options.calibration, options.maxTilt);
    this.R = base.R;
    this.t = base.t;
    this.yaw = base.yaw;
    this.tilt = base.tilt;
    this.pusherOffset = [...options.pusherOffset];
  }

  /**
   * Tool velocity (base x, y; m/s) for a pusher velocity in the table frame. The tool does not
   * rotate, so every point of it, the pusher included, moves with the same velocity.
   */
  toolVelocity(pusherVx: number, pusherVy: number): [number, number] {
    const v = mulVec(this.R, [pusherVx, pusherVy, 0]);
    return [v[0], v[1]];
  }

  /**
   * Tool twist (base x, y velocity of the TCP, m/s; yaw rate about base z, rad/s) that moves the
   * tool point with (vx, vy) in the table frame while the tool turns at `yawRate`: turning swings
   * the tool point about the TCP, which the TCP's own velocity makes up for.
   */
  toolTwist(
    vx: number,
    vy: number,
    yawRate: number,
    tcpPose: readonly number[],
  ): { vx: number; vy: number; yawRate: number } {
    const [bx, by] = this.toolVelocity(vx, vy);
    const arm = mulVec(rotationFromVector(tcpPose.slice(3)), this.pusherOffset);
    const swing = cross([0, 0, yawRate], arm);
    return { vx: bx - swing[0], vy: by - swing[1], yawRate };
  }

  /** The gripper's yaw in the table frame (rad): the direction of the tool's x axis seen from above. */
  toolYaw(tcpPose: readonly number[]): number {
    const R = rotationFromVector(tcpPose.slice(3));
    const x = mulTransposeVec(this.R, [R[0][0], R[1][0], R[2][0]]);
    return Math.atan2(x[1], x[0]);
  }

  /**
   * The tool-down orientation (UR rotation matrix) whose x axis points along table yaw `yaw`: the
   * tool's z axis straight down, as the virtual lab and the setup instructions hold a gripper.
   */
  toolDownAt(yaw: number): Mat3 {
    const c = Math.cos(this.yaw + yaw);
    const s = Math.sin(this.yaw + yaw);
    // Rz(table yaw + yaw) times a half turn about x (x kept, y and z reversed).
    return [
      [c, s, 0],
      [s, -c, 0],
      [0, 0, -1],
    ];
  }

  /** Pusher velocity in the table frame from the tool twist (base frame) at the given tool pose. */
  pusherVelocity(tcpSpeed: readonly number[], tcpPose: readonly number[]): { vx: number; vy: number } {
    const arm = mulVec(rotationFromVector(tcpPose.slice(3)), this.pusherOffset);
    const w = cross(tcpSpeed.slice(3), arm);
    const vBase: Vec3 = [tcpSpeed[0]! + w[0], tcpSpeed[1]! + w[1], tcpSpeed[2]! + w[2]];
    const v = mulTransposeVec(this.R, vBase);
    return { vx: v[0], vy: v[1] };
  }

  /** Pusher position in the table frame (z: height of the pusher point above the table) from a tool pose. */
  pusherPosition(tcpPose: readonly number[]): { x: number; y: number; z: number } {
    const arm = mulVec(rotationFromVector(tcpPose.slice(3)), this.pusherOffset);
    const pBase: Vec3 = [
      tcpPose[0]! + arm[0] - this.t[0],
      tcpPose[1]! + arm[1] - this.t[1],
      tcpPose[2]! + arm[2] - this.t[2],
    ];
    const p = mulTransposeVec(this.R, pBase);
    return { x: p[0], y: p[1], z: p[2] };
  }

  /** Tool position in the base frame that puts the pusher point at (x, y, z) in the table frame. */
  toolPosition(pusher: { x: number; y: number; z: number }, tcpOrientation: readonly number[]): Vec3 {
    const p = mulVec(this.R, [pusher.x, pusher.y, pusher.z]);
    const arm = mulVec(rotationFromVector(tcpOrientation), this.pusherOffset);
    return [p[0] + this.t[0] - arm[0], p[1] + this.t[1] - arm[1], p[2] + this.t[2] - arm[2]];
  }
}
