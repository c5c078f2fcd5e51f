/**
 * The register map between the console and the control program on the controller. The RTDE
 * client, the URScript template and the virtual controller all read it from here, so they cannot
 * disagree. Registers 24..47 only: a fieldbus (EtherNet/IP, PROFINET, MODBUS) owns 0..23 when it is
 * enabled.
 */

/** Register numbers (N in input_int_register_N, read_input_integer_register(N), ...). */
export const REGISTER_NUMBERS = {
  /** int: advanced by the console with every command; a command is fresh only when this changes. */
  sequence: 24,
  /** int: CommandCode. */
  command: 25,
  /** double: tool velocity along base x, m/s. */
  vx: 24,
  /** double: tool velocity along base y, m/s. */
  vy: 25,
  /** double: acceleration for speedl / deceleration for stopl, m/s^2. */
  acceleration: 26,
  /** double: tool yaw rate about base z, rad/s (0 for the pusher, whose tool never turns). */
  yawRate: 27,
  /** double: angular acceleration of speedl's yaw (its aRot), rad/s^2. */
  yawAcceleration: 28,
  /** int out: the sequence number the program last took. */
  ackSequence: 24,
  /** int out: ProgramState. */
  programState: 25,
  /** int out: advanced by the program every control cycle, so the console sees it is alive. */
  heartbeat: 26,
} as const;

export const INPUT_NAMES = {
  sequence: `input_int_register_${REGISTER_NUMBERS.sequence}`,
  command: `input_int_register_${REGISTER_NUMBERS.command}`,
  vx: `input_double_register_${REGISTER_NUMBERS.vx}`,
  vy: `input_double_register_${REGISTER_NUMBERS.vy}`,
  acceleration: `input_double_register_${REGISTER_NUMBERS.acceleration}`,
  yawRate: `input_double_register_${REGISTER_NUMBERS.yawRate}`,
  yawAcceleration: `input_double_register_${REGISTER_NUMBERS.yawAcceleration}`,
} as const;

export const OUTPUT_NAMES = {
  ackSequence: `output_int_register_${REGISTER_NUMBERS.ackSequence}`,
  programState: `output_int_register_${REGISTER_NUMBERS.programState}`,
  heartbeat: `output_int_register_${REGISTER_NUMBERS.heartbeat}`,
} as const;

/** The command input recipe, in this order. */
export const COMMAND_INPUTS = [
  INPUT_NAMES.sequence,
  INPUT_NAMES.command,
  INPUT_NAMES.vx,
  INPUT_NAMES.vy,
  INPUT_NAMES.acceleration,
  INPUT_NAMES.yawRate,
  INPUT_NAMES.yawAcceleration,
] as const;

export const CommandCode = { STOP: 0, SPEED: 1 } as const;
export type CommandCodeName = keyof typeof CommandCode;

/**
 * What the program is doing. 0 is what the registers read before the program ever ran.
 * WAIT_REARM (just started) and TRIPPED (watchdog fired) both need a fresh zero-velocity command
 * before any motion command is taken.
 */
export const ProgramState = { NOT_RUNNING: 0, WAIT_REARM: 1, ARMED: 2, MOVING: 3, TRIPPED: 4 } as const;
export type ProgramStateName = keyof typeof ProgramState;

export function programStateName(code: number): ProgramStateName | `UNKNOWN(${number})` {
  const entry = Object.entries(ProgramState).find(([, v]) => v === code);
  return entry ? (entry[0] as ProgramStateName) : `UNKNOWN(${code})`;
}

/** int32 sequence numbers wrap; the program only compares for inequality. */
export function nextSequence(seq: number): number {
  return seq >= 0x7fffffff ? 1 : seq + 1;
}
