/**
 * Our control program (resources/urscript/parapush-control.script) run natively, one control cycle
 * per step(), line for line the same decisions as the URScript: sequence freshness, the watchdog,
 * the zero-velocity re-arm, the trip on a non-finite or out-of-range command, speedl with the
 * speed and yaw-rate caps, stopl never softer than the stop deceleration, the height hold.
 * Keep the two in step: a change to one is a change to both.
 *
 * stopl blocks as on a real controller (URScript manual: it returns once the arm stands still):
 * the pass that calls it ends there, and the passes after it do nothing, the registers' heartbeat
 * and ack included, until the arm is at rest. Its rotational deceleration is the program's aRot
 * where the program passes one (the e-Series form), else the linear deceleration, as stopl(a)
 * does.
 */
import { CAP_TOLERANCE, type ControlProgramSettings } from '../../robot/control-program';
import {
  MAX_STOP_DECELERATION,
  MIN_COMMAND_ACCELERATION,
  STOP_YAW_DECELERATION,
} from '#contract/safety-limits';
import { CommandCode, ProgramState, REGISTER_NUMBERS } from '../../robot/registers';
import type { VirtualArm } from './arm';

export interface RegisterFile {
  readonly inputInt: Int32Array;
  readonly inputDouble: Float64Array;
  readonly outputInt: Int32Array;
  readonly outputDouble: Float64Array;
}

export class ControlProgramRunner {
  state: number = ProgramState.WAIT_REARM;
  private lastSeq: number;
  private age = 0;
  private vx = 0;
  private vy = 0;
  private wz = 0;
  private acc: number;
  private accYaw = STOP_YAW_DECELERATION;
  private heartbeat = 0;
  private readonly holdZ: number;
  /** A stopl is running: the program waits in it until the arm stands still. */
  private inStopl = false;

  constructor(
    readonly settings: ControlProgramSettings,
    private readonly registers: RegisterFile,
    private readonly arm: VirtualArm,
    private readonly step: number,
    /** The program's stopl passes aRot (STOP_YAW_DECELERATION); else stopl(a) stops the turn at a. */
    private readonly stoplWithRotation = true,
  ) {
    // The value already in the register is old by definition: only a change counts.
    this.lastSeq = registers.inputInt[REGISTER_NUMBERS.sequence]!;
    this.acc = settings.stopAcceleration;
    this.holdZ = arm.pose[2];
    arm.stopl(settings.stopAcceleration, STOP_YAW_DECELERATION);
  }

  /** The program's stopl: the arm decelerates and this pass of the loop waits for it. */
  private stopl(a: number): void {
    this.registers.outputInt[REGISTER_NUMBERS.programState] = this.state;
    this.arm.stopl(a, this.stoplWithRotation ? STOP_YAW_DECELERATION : a);
    this.inStopl = true;
  }

  /** One control cycle of the program: a pass of its loop, or a cycle spent waiting in stopl. */
  tick(): void {
    if (this.inStopl) {
      if (!this.arm.atRest) return;
      // stopl returns: the rest of the pass that called it writes the registers.
      this.inStopl = false;
      this.writeRegisters();
      return;
    }
    this.pass();
  }

  private pass(): void {
    const r = this.registers;
    const s = this.settings;
    const seq = r.inputInt[REGISTER_NUMBERS.sequence]!;
    const fresh = seq !== this.lastSeq;
    if (fresh) {
      this.lastSeq = seq;
      this.age = 0;
    } else {
      this.age += this.step;
    }
    const code = r.inputInt[REGISTER_NUMBERS.command]!;
    const cmdVx = r.inputDouble[REGISTER_NUMBERS.vx]!;
    const cmdVy = r.inputDouble[REGISTER_NUMBERS.vy]!;
    const cmdAcc = r.inputDouble[REGISTER_NUMBERS.acceleration]!;
    const cmdWz = r.inputDouble[REGISTER_NUMBERS.yawRate]!;
    const cmdAccYaw = r.inputDouble[REGISTER_NUMBERS.yawAcceleration]!;

    if (this.state === ProgramState.WAIT_REARM || this.state === ProgramState.TRIPPED) {
      if (fresh && cmdVx === 0 && cmdVy === 0 && cmdWz === 0) this.state = ProgramState.ARMED;
    } else if (this.age > s.watchdogTimeout) {
      this.state = ProgramState.TRIPPED;
      this.vx = 0;
      this.vy = 0;
      this.wz = 0;
      this.stopl(s.stopAcceleration);
    } else {
      if (fresh) {
        if (code === CommandCode.SPEED) {
          const speed = Math.hypot(cmdVx, cmdVy);
          // Written as "within range" like the script, so a NaN fails it.
          const valid =
            speed <= s.maxSpeed * CAP_TOLERANCE &&
            cmdWz <= s.maxYawRate * CAP_TOLERANCE &&
            cmdWz >= -s.maxYawRate * CAP_TOLERANCE &&
            cmdAcc >= MIN_COMMAND_ACCELERATION &&
            cmdAcc <= s.maxAcceleration &&
            cmdAccYaw >= MIN_COMMAND_ACCELERATION &&
            cmdAccYaw <= s.maxYawAcceleration;
          if (valid) {
            const scale = speed > s.maxSpeed ? s.maxSpeed / speed : 1;
            this.vx = cmdVx * scale;
            this.vy = cmdVy * scale;
            this.wz = Math.min(Math.max(cmdWz, -s.maxYawRate), s.maxYawRate);
            this.acc = cmdAcc;
            this.accYaw = cmdAccYaw;
            this.state = ProgramState.MOVING;
          } else {
            this.state = ProgramState.TRIPPED;
            this.vx = 0;
            this.vy = 0;
            this.wz = 0;
            this.stopl(s.stopAcceleration);
          }
        } else {
          this.vx = 0;
          this.vy = 0;
          this.wz = 0;
          this.acc =
            cmdAcc > s.stopAcceleration && cmdAcc <= MAX_STOP_DECELERATION ? cmdAcc : s.stopAcceleration;
          if (this.state === ProgramState.MOVING) {
            this.state = ProgramState.ARMED;
            this.stopl(this.acc);
          }
        }
      }
      if (this.state === ProgramState.MOVING) {
        const vz = Math.min(
          Math.max(s.heightGain * (this.holdZ - this.arm.pose[2]), -s.maxHeightCorrection),
          s.maxHeightCorrection,
        );
        this.arm.speedl([this.vx, this.vy, vz], this.acc, { rate: this.wz, acceleration: this.accYaw });
      }
    }

    if (this.inStopl) return;
    this.writeRegisters();
  }

  /** The end of a pass: heartbeat, ack and state. */
  private writeRegisters(): void {
    const r = this.registers;
    this.heartbeat = this.heartbeat >= 1_000_000_000 ? 0 : this.heartbeat + 1;
    r.outputInt[REGISTER_NUMBERS.ackSequence] = this.lastSeq;
    r.outputInt[REGISTER_NUMBERS.programState] = this.state;
    r.outputInt[REGISTER_NUMBERS.heartbeat] = this.heartbeat;
  }
}
