/**
 * The robot state the console works with, decoded from one RTDE output package: modes as names,
 * status bits as named booleans, and our control program's registers.
 */
import { OUTPUT_NAMES, programStateName, type ProgramStateName } from './registers';
import {
  codeName,
  decodeBits,
  ROBOT_MODES,
  ROBOT_STATUS_BITS,
  RUNTIME_STATES,
  SAFETY_MODES,
  SAFETY_STATUS_BITS,
  type RobotStatus,
  type SafetyStatus,
} from './rtde/robot-state-codes';
import type { FieldValue } from './rtde/field-types';

/** The output recipe Ur5Connection subscribes to, in this order. */
export const STATE_OUTPUTS = [
  'timestamp',
  'actual_TCP_pose',
  'actual_TCP_speed',
  'robot_mode',
  'safety_mode',
  'runtime_state',
  'robot_status_bits',
  'safety_status_bits',
  'speed_scaling',
  OUTPUT_NAMES.ackSequence,
  OUTPUT_NAMES.programState,
  OUTPUT_NAMES.heartbeat,
] as const;

export interface RobotState {
  /** Controller time, s. */
  timestamp: number;
  /** Monotonic time at decode, s (common/clock.ts). */
  receivedAt: number;
  /** Tool pose in the base frame: x, y, z (m), rotation vector (rad). */
  tcpPose: number[];
  /** Tool twist in the base frame: linear (m/s), angular (rad/s). */
  tcpSpeed: number[];
  robotMode: string;
  safetyMode: string;
  runtimeState: string;
  robotStatus: RobotStatus;
  safetyStatus: SafetyStatus;
  speedScaling: number;
  program: { ackSequence: number; state: ProgramStateName | `UNKNOWN(${number})`; heartbeat: number };
}

export function decodeRobotState(values: readonly FieldValue[], receivedAt: number): RobotState {
  const v = values as [
    number,
    number[],
    number[],
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return {
    timestamp: v[0],
    receivedAt,
    tcpPose: [...v[1]],
    tcpSpeed: [...v[2]],
    robotMode: codeName(ROBOT_MODES, v[3]),
    safetyMode: codeName(SAFETY_MODES, v[4]),
    runtimeState: codeName(RUNTIME_STATES, v[5]),
    robotStatus: decodeBits(v[6], ROBOT_STATUS_BITS),
    safetyStatus: decodeBits(v[7], SAFETY_STATUS_BITS),
    speedScaling: v[8],
    program: { ackSequence: v[9], state: programStateName(v[10]), heartbeat: v[11] },
  };
}

/** Tool speeds below which the arm stands still: 1 mm/s, 0.01 rad/s. */
const REST_SPEED = 1e-3;
const REST_TURN_RATE = 1e-2;

/** Whether the tool stands still by the robot's own measure (false without a state). */
export function toolAtRest(s: RobotState | undefined): boolean {
  if (!s) return false;
  const [vx = 0, vy = 0, vz = 0, wx = 0, wy = 0, wz = 0] = s.tcpSpeed;
  return Math.hypot(vx, vy, vz) < REST_SPEED && Math.hypot(wx, wy, wz) < REST_TURN_RATE;
}

/** True when our control program runs and takes commands (not NOT_RUNNING, playing). */
export function programPlaying(s: RobotState): boolean {
  return s.runtimeState === 'PLAYING' && s.robotStatus.programRunning && s.program.state !== 'NOT_RUNNING';
}
