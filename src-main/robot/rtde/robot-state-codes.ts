/**
 * The controller's state codes as named values: robot_mode, safety_mode, runtime_state and the
 * bits of robot_status_bits / safety_status_bits (UR RTDE guide).
 */

export const ROBOT_MODES = {
  [-1]: 'NO_CONTROLLER',
  0: 'DISCONNECTED',
  1: 'CONFIRM_SAFETY',
  2: 'BOOTING',
  3: 'POWER_OFF',
  4: 'POWER_ON',
  5: 'IDLE',
  6: 'BACKDRIVE',
  7: 'RUNNING',
} as const satisfies Record<number, string>;
export type RobotModeName = (typeof ROBOT_MODES)[keyof typeof ROBOT_MODES];
export const RobotMode = invert(ROBOT_MODES);

export const SAFETY_MODES = {
  1: 'NORMAL',
  2: 'REDUCED',
  3: 'PROTECTIVE_STOP',
  4: 'RECOVERY',
  5: 'SAFEGUARD_STOP',
  6: 'SYSTEM_EMERGENCY_STOP',
  7: 'ROBOT_EMERGENCY_STOP',
  8: 'VIOLATION',
  9: 'FAULT',
  // e-Series (URCL datatypes.h SafetyMode / SafetyStatus); 12 is what a safeguard stop in
  // automatic mode reads, 13 a released three-position enabling device.
  10: 'VALIDATE_JOINT_ID',
  11: 'UNDEFINED_SAFETY_MODE',
  12: 'AUTOMATIC_MODE_SAFEGUARD_STOP',
  13: 'SYSTEM_THREE_POSITION_ENABLING_STOP',
} as const satisfies Record<number, string>;
export type SafetyModeName = (typeof SAFETY_MODES)[keyof typeof SAFETY_MODES];
export const SafetyMode = invert(SAFETY_MODES);

export const RUNTIME_STATES = {
  0: 'STOPPING',
  1: 'STOPPED',
  2: 'PLAYING',
  3: 'PAUSING',
  4: 'PAUSED',
  5: 'RESUMING',
} as const satisfies Record<number, string>;
export type RuntimeStateName = (typeof RUNTIME_STATES)[keyof typeof RUNTIME_STATES];
export const RuntimeState = invert(RUNTIME_STATES);

/** Bit numbers of robot_status_bits. */
export const ROBOT_STATUS_BITS = {
  powerOn: 0,
  programRunning: 1,
  teachButtonPressed: 2,
  powerButtonPressed: 3,
} as const;

/** Bit numbers of safety_status_bits. */
export const SAFETY_STATUS_BITS = {
  normal: 0,
  reduced: 1,
  protectiveStopped: 2,
  recoveryMode: 3,
  safeguardStopped: 4,
  systemEmergencyStopped: 5,
  robotEmergencyStopped: 6,
  emergencyStopped: 7,
  violation: 8,
  fault: 9,
  stoppedDueToSafety: 10,
} as const;

export type RobotStatus = Record<keyof typeof ROBOT_STATUS_BITS, boolean>;
export type SafetyStatus = Record<keyof typeof SAFETY_STATUS_BITS, boolean>;

export function decodeBits<K extends string>(value: number, bits: Record<K, number>): Record<K, boolean> {
  const out = {} as Record<K, boolean>;
  for (const k of Object.keys(bits) as K[]) out[k] = ((value >>> bits[k]) & 1) === 1;
  return out;
}

export function encodeBits<K extends string>(
  flags: Partial<Record<K, boolean>>,
  bits: Record<K, number>,
): number {
  let v = 0;
  for (const k of Object.keys(bits) as K[]) if (flags[k]) v |= 1 << bits[k];
  return v >>> 0;
}

/** Name of a code, or UNKNOWN(code) for a value a newer controller might send. */
export function codeName(table: Record<number, string>, code: number): string {
  return table[code] ?? `UNKNOWN(${code})`;
}

function invert<T extends Record<number, string>>(table: T): { [K in keyof T as T[K] & string]: number } {
  const out: Record<string, number> = {};
  for (const [code, name] of Object.entries(table)) out[name] = Number(code);
  return out as { [K in keyof T as T[K] & string]: number };
}
