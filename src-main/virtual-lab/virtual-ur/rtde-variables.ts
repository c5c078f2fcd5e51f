/**
 * The RTDE variables the virtual controller serves, with their types as a real controller reports
 * them. Outputs read the controller state; inputs write registers. The arm has no joint model, so
 * joint outputs report a fixed home configuration at rest (enough for clients that subscribe to
 * them; Parapush itself works in Cartesian space only).
 */
import type { FieldType, FieldValue } from '../../robot/rtde/field-types';
import {
  encodeBits,
  ROBOT_STATUS_BITS,
  SAFETY_STATUS_BITS,
  SafetyMode,
} from '../../robot/rtde/robot-state-codes';
import type { VirtualController } from './controller';

export interface OutputVariable {
  type: FieldType;
  read: (c: VirtualController) => FieldValue;
}

export interface InputVariable {
  type: FieldType;
  write: (c: VirtualController, v: FieldValue) => void;
}

const HOME_Q = [0, -Math.PI / 2, Math.PI / 2, -Math.PI / 2, -Math.PI / 2, 0];
const ZERO6 = [0, 0, 0, 0, 0, 0];

function safetyStatusBits(c: VirtualController): number {
  const m = c.safetyMode;
  const eStop = m === SafetyMode.ROBOT_EMERGENCY_STOP || m === SafetyMode.SYSTEM_EMERGENCY_STOP;
  return encodeBits(
    {
      normal: m === SafetyMode.NORMAL,
      reduced: m === SafetyMode.REDUCED,
      protectiveStopped: m === SafetyMode.PROTECTIVE_STOP,
      recoveryMode: m === SafetyMode.RECOVERY,
      safeguardStopped: m === SafetyMode.SAFEGUARD_STOP,
      systemEmergencyStopped: m === SafetyMode.SYSTEM_EMERGENCY_STOP,
      robotEmergencyStopped: m === SafetyMode.ROBOT_EMERGENCY_STOP,
      emergencyStopped: eStop,
      violation: m === SafetyMode.VIOLATION,
      fault: m === SafetyMode.FAULT,
      stoppedDueToSafety: m !== SafetyMode.NORMAL && m !== SafetyMode.REDUCED,
    },
    SAFETY_STATUS_BITS,
  );
}

const tcpSpeed = (c: VirtualController): number[] => [...c.arm.velocity, 0, 0, c.arm.yawRate];

const outputs: Record<string, OutputVariable> = {
  timestamp: { type: 'DOUBLE', read: (c) => c.time },
  actual_TCP_pose: { type: 'VECTOR6D', read: (c) => c.reportedToolPose() },
  target_TCP_pose: { type: 'VECTOR6D', read: (c) => c.reportedToolPose() },
  actual_TCP_speed: { type: 'VECTOR6D', read: tcpSpeed },
  target_TCP_speed: { type: 'VECTOR6D', read: tcpSpeed },
  actual_TCP_force: { type: 'VECTOR6D', read: () => ZERO6 },
  actual_q: { type: 'VECTOR6D', read: () => HOME_Q },
  target_q: { type: 'VECTOR6D', read: () => HOME_Q },
  actual_qd: { type: 'VECTOR6D', read: () => ZERO6 },
  target_qd: { type: 'VECTOR6D', read: () => ZERO6 },
  robot_mode: { type: 'INT32', read: (c) => c.robotMode },
  safety_mode: { type: 'INT32', read: (c) => c.safetyMode },
  safety_status: { type: 'INT32', read: (c) => c.safetyMode },
  runtime_state: { type: 'UINT32', read: (c) => c.runtimeStateCode },
  robot_status_bits: {
    type: 'UINT32',
    read: (c) =>
      encodeBits({ powerOn: c.powerOn, programRunning: c.runtime === 'PLAYING' }, ROBOT_STATUS_BITS),
  },
  safety_status_bits: { type: 'UINT32', read: safetyStatusBits },
  speed_scaling: { type: 'DOUBLE', read: (c) => c.speedSliderFraction },
  target_speed_fraction: { type: 'DOUBLE', read: (c) => c.speedSliderFraction },
  actual_execution_time: { type: 'DOUBLE', read: () => 0 },
};

const inputs: Record<string, InputVariable> = {
  speed_slider_mask: { type: 'UINT32', write: () => {} },
  speed_slider_fraction: {
    type: 'DOUBLE',
    write: (c, v) => {
      c.speedSliderFraction = Math.min(Math.max(v as number, 0), 1);
    },
  },
};

for (let n = 0; n < 48; n++) {
  outputs[`output_int_register_${n}`] = { type: 'INT32', read: (c) => c.registers.outputInt[n]! };
  outputs[`output_double_register_${n}`] = { type: 'DOUBLE', read: (c) => c.registers.outputDouble[n]! };
  // A real controller also lets clients read back the input registers.
  outputs[`input_int_register_${n}`] = { type: 'INT32', read: (c) => c.registers.inputInt[n]! };
  outputs[`input_double_register_${n}`] = { type: 'DOUBLE', read: (c) => c.registers.inputDouble[n]! };
  inputs[`input_int_register_${n}`] = {
    type: 'INT32',
    write: (c, v) => {
      c.registers.inputInt[n] = v as number;
    },
  };
  inputs[`input_double_register_${n}`] = {
    type: 'DOUBLE',
    write: (c, v) => {
      c.registers.inputDouble[n] = v as number;
    },
  };
}

export function outputVariable(name: string): OutputVariable | undefined {
  return Object.prototype.hasOwnProperty.call(outputs, name) ? outputs[name] : undefined;
}

export function inputVariable(name: string): InputVariable | undefined {
  return Object.prototype.hasOwnProperty.call(inputs, name) ? inputs[name] : undefined;
}

/** Registers 0..23, which a fieldbus adapter owns when it is enabled. */
export function isLowRegister(name: string): boolean {
  const m = /^input_(?:int|double)_register_(\d+)$/.exec(name);
  return m !== null && Number(m[1]) < 24;
}
