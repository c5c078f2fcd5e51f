/**
 * The virtual UR controller's state: robot mode, safety mode, program runtime, registers and the
 * arm, advanced one control cycle per tick(). The servers (RTDE, dashboard, script ports) are thin
 * adapters over this object; fault injection (protective stop, emergency stop) is a method call.
 */
import { EventEmitter } from 'node:events';
import { parseControlProgram, programDeclarations, PROGRAM_NAME } from '../../robot/control-program';
import { REGISTER_NUMBERS } from '../../robot/registers';
import { RobotMode, RuntimeState, SafetyMode } from '../../robot/rtde/robot-state-codes';
import { NORMAL_PRESET_FORCE_LIMIT } from '#contract/flange-load';
import { VirtualArm, type Pose6 } from './arm';
import { ControlProgramRunner, type RegisterFile } from './control-program-runner';
import {
  controllerProfile,
  softwareForFrequency,
  type ControllerProfile,
  type ControllerVersion,
} from './profile';

export type { ControllerVersion } from './profile';

export interface VirtualControllerOptions {
  /**
   * Software version (profile.ts): 3.x a CB3 at 125 Hz, 5.x an e-Series at 500 Hz. Default: the
   * version `frequency` stands for, else 5.11.
   */
  software?: string;
  /** Control rate; when given with `software` it must be that version's. */
  frequency?: 125 | 500;
  /** e-Series only: Remote Control (true) or Local mode, as the teach pendant sets it. */
  remoteControl?: boolean;
  initialPose?: Pose6;
  /** Seconds after a protective stop before `unlock protective stop` is accepted (5 s on a real UR). */
  unlockDelay?: number;
  /**
   * Seconds from an accepted `unlock protective stop` until the arm runs again: the reply says
   * the release has started, the robot mode returns to RUNNING when it is done.
   */
  releaseTime?: number;
  /** Deceleration of a protective stop, m/s^2. */
  protectiveStopDeceleration?: number;
  /** The teach pendant's speed slider, (0, 1]: 1 is 100 %. */
  speedSlider?: number;
  /**
   * The safety configuration's tool force limit, N: a larger force on the tool raises a
   * protective stop (UR's Normal safety preset: 150 N).
   */
  toolForceLimit?: number;
}

/** What the running program declared of the tool (set_payload, set_tcp). */
export interface DeclaredTool {
  payload: { mass: number; centerOfGravity: number[] } | undefined;
  tcp: number[] | undefined;
}

export interface MotionSample {
  /** Controller time, s. */
  time: number;
  /** Tool pose in the base frame: x, y, z (m), rotation vector (rad). */
  pose: Pose6;
  /** Tool linear velocity in the base frame, m/s. */
  velocity: [number, number, number];
  /** Tool angular velocity about base z, rad/s (the only rotation the control program commands). */
  yawRate: number;
}

type Events = {
  /** Every control cycle. */
  motion: [MotionSample];
  /** A human-readable event (protective stop, program halted, ...), for logs and tests. */
  event: [string];
};

export const DEFAULT_POSE: Pose6 = [-0.1, -0.45, 0.2, 0, Math.PI, 0];

export type RuntimeName = 'STOPPED' | 'PLAYING' | 'PAUSED';

export class VirtualController extends EventEmitter<Events> {
  readonly profile: ControllerProfile;
  readonly frequency: 125 | 500;
  readonly cycle: number;
  readonly version: ControllerVersion;
  /** e-Series: Remote Control, or Local mode (external scripts ignored); a CB3 has no such mode. */
  remoteControl: boolean;
  readonly arm: VirtualArm;
  readonly registers: RegisterFile = {
    inputInt: new Int32Array(48),
    inputDouble: new Float64Array(48),
    outputInt: new Int32Array(48),
    outputDouble: new Float64Array(48),
  };
  readonly unlockDelay: number;
  readonly releaseTime: number;
  readonly toolForceLimit: number;
  /** The payload and TCP the running program set; undefined before a program sets them. */
  declaredTool: DeclaredTool | undefined;
  private readonly protectiveDeceleration: number;
  /** Controller time at which an accepted protective-stop release completes. */
  private releaseDoneAt: number | undefined;

  time = 0;
  robotMode: number = RobotMode.RUNNING;
  safetyMode: number = SafetyMode.NORMAL;
  runtime: RuntimeName = 'STOPPED';
  programName = '<unnamed>';
  safetyPopup = false;
  speedSliderFraction = 1;
  private runner: ControlProgramRunner | undefined;
  /** Text of the last script, so `play` after `stop` can start it again. */
  private lastScript: string | undefined;
  private protectiveStopAt = -Infinity;
  /** The reported tool pose is corrupted (injectCorruptToolPose): the arm itself moves on. */
  private toolPoseCorrupt = false;
  /** Controller time of the last RTDE write of each input variable (for rtde_set_watchdog). */
  private readonly inputUpdatedAt = new Map<string, number>();
  private rtdeWatchdog: { variable: string; minFrequency: number; armedAt: number } | undefined;

  constructor(options: VirtualControllerOptions) {
    super();
    this.profile = controllerProfile(options.software ?? softwareForFrequency(options.frequency));
    if (options.frequency !== undefined && options.frequency !== this.profile.frequency) {
      throw new Error(
        `a ${this.profile.series} (${options.software}) runs at ${this.profile.frequency} Hz, not ${options.frequency} Hz`,
      );
    }
    this.frequency = this.profile.frequency;
    this.cycle = 1 / this.frequency;
    this.version = this.profile.version;
    this.remoteControl = this.profile.series === 'cb3' || (options.remoteControl ?? true);
    this.arm = new VirtualArm(options.initialPose ?? DEFAULT_POSE);
    this.unlockDelay = options.unlockDelay ?? 5;
    this.releaseTime = options.releaseTime ?? 0.5;
    this.protectiveDeceleration = options.protectiveStopDeceleration ?? 10;
    this.toolForceLimit = options.toolForceLimit ?? NORMAL_PRESET_FORCE_LIMIT;
    this.setSpeedSlider(options.speedSlider ?? 1);
  }

  /** Moves the teach pendant's speed slider (0, 1]: every motion runs at that fraction of its speed. */
  setSpeedSlider(fraction: number): void {
    if (!(fraction > 0 && fraction <= 1)) throw new RangeError(`speed slider ${fraction} is not in (0, 1]`);
    this.speedSliderFraction = fraction;
    this.arm.speedScale = fraction;
  }

  /**
   * The force on the tool this cycle (N, from the world it pushes in): beyond the safety
   * configuration's tool force limit the controller raises a protective stop.
   */
  noteToolForce(newtons: number): void {
    if (newtons > this.toolForceLimit && this.safetyMode === SafetyMode.NORMAL) {
      this.emit('event', `tool force ${newtons.toFixed(0)} N over the ${this.toolForceLimit} N limit`);
      this.injectProtectiveStop();
    }
  }

  /** The program's state as the control program reports it (ProgramState), undefined when none runs. */
  get programState(): number | undefined {
    return this.runner?.state;
  }

  get powerOn(): boolean {
    return this.robotMode >= RobotMode.POWER_ON;
  }

  /** Called by the RTDE server for every input variable a data package writes. */
  noteInputWrite(name: string): void {
    this.inputUpdatedAt.set(name, this.time);
  }

  /** Advances one control cycle. */
  tick(): void {
    this.time += this.cycle;
    if (this.releaseDoneAt !== undefined && this.time >= this.releaseDoneAt) {
      this.releaseDoneAt = undefined;
      this.safetyMode = SafetyMode.NORMAL;
      this.robotMode = RobotMode.RUNNING;
      this.emit('event', 'protective stop released: robot running');
    }
    if (this.runtime === 'PLAYING' && this.runner) {
      if (this.rtdeWatchdogExpired()) {
        this.halt(
          `RTDE watchdog: ${this.rtdeWatchdog!.variable} not updated at ${this.rtdeWatchdog!.minFrequency.toFixed(2)} Hz`,
        );
      } else {
        this.runner.tick();
      }
    }
    this.arm.step(this.cycle);
    this.emit('motion', {
      time: this.time,
      pose: [...this.arm.pose],
      velocity: [...this.arm.velocity],
      yawRate: this.arm.yawRate,
    });
  }

  /**
   * One framed program arrives on 30002/30003 (script-server.ts splits the stream): it replaces
   * whatever runs. In Local mode an e-Series ignores external scripts.
   */
  loadScript(text: string): string {
    if (!this.remoteControl) {
      this.emit('event', 'script ignored: controller in Local mode');
      return 'local';
    }
    if (this.robotMode !== RobotMode.RUNNING || this.safetyMode !== SafetyMode.NORMAL) {
      this.emit('event', 'script refused: robot not running or not in normal safety mode');
      return 'refused';
    }
    this.stopRunner();
    this.lastScript = text;
    return this.startScript(text);
  }

  private startScript(text: string): string {
    const settings = parseControlProgram(text);
    if (!settings) {
      // Another program replaces ours; we do not interpret foreign URScript, so it ends at once
      // (a lone `parapush_control()` line is such a program: the function is not defined in it).
      this.stopRunner();
      this.programName = '<unnamed>';
      this.runtime = 'STOPPED';
      this.arm.stopl(1.5);
      this.emit('event', `foreign script replaced the control program: ${text.split('\n')[0]}`);
      return 'foreign';
    }
    const declared = programDeclarations(text);
    if (declared.stoplWithRotation && this.profile.series === 'cb3') {
      // The CB3 script manual documents stopl(a) only: the program does not compile.
      this.stopRunner();
      this.runtime = 'STOPPED';
      this.emit('event', 'script refused: stopl takes one argument on a CB3');
      return 'refused';
    }
    this.programName = PROGRAM_NAME;
    this.declaredTool = { payload: declared.payload, tcp: declared.tcp };
    this.runner = new ControlProgramRunner(
      settings,
      this.registers,
      this.arm,
      this.cycle,
      declared.stoplWithRotation,
    );
    this.rtdeWatchdog = {
      variable: `input_int_register_${REGISTER_NUMBERS.sequence}`,
      minFrequency: 1 / (3 * settings.watchdogTimeout),
      armedAt: this.time,
    };
    this.runtime = 'PLAYING';
    this.emit('event', 'control program started');
    return 'started';
  }

  private rtdeWatchdogExpired(): boolean {
    const w = this.rtdeWatchdog;
    if (!w) return false;
    const last = Math.max(this.inputUpdatedAt.get(w.variable) ?? -Infinity, w.armedAt);
    return this.time - last > 1 / w.minFrequency;
  }

  private stopRunner(): void {
    this.runner = undefined;
    this.rtdeWatchdog = undefined;
    this.registers.outputInt[REGISTER_NUMBERS.programState] = 0;
  }

  /** The program stops (dashboard stop, RTDE watchdog): the arm decelerates. */
  private halt(reason: string): void {
    this.stopRunner();
    this.runtime = 'STOPPED';
    this.arm.stopl(1.5);
    this.emit('event', `program halted: ${reason}`);
  }

  /**
   * The tool pose as the controller reports it (RTDE actual_TCP_pose, target_TCP_pose): the arm's,
   * or NaN in every coordinate while the report is corrupted.
   */
  reportedToolPose(): Pose6 {
    return this.toolPoseCorrupt ? [NaN, NaN, NaN, NaN, NaN, NaN] : [...this.arm.pose];
  }

  // ---- fault injection -------------------------------------------------------------------

  /**
   * A corrupted state: from now on (until `corrupt` is false) the reported tool pose is NaN, while
   * the arm goes on doing what it was commanded. Nothing in the state says it is wrong (the safety
   * and robot modes stay normal), so only a check of the numbers themselves can catch it.
   */
  injectCorruptToolPose(corrupt = true): void {
    this.toolPoseCorrupt = corrupt;
    this.emit('event', corrupt ? 'tool pose report corrupted' : 'tool pose report restored');
  }

  injectProtectiveStop(): void {
    if (this.safetyMode === SafetyMode.PROTECTIVE_STOP) return;
    this.safetyMode = SafetyMode.PROTECTIVE_STOP;
    this.protectiveStopAt = this.time;
    this.arm.stopl(this.protectiveDeceleration);
    if (this.runtime === 'PLAYING') this.runtime = 'PAUSED';
    this.safetyPopup = true;
    this.emit('event', 'protective stop');
  }

  injectEmergencyStop(): void {
    this.safetyMode = SafetyMode.ROBOT_EMERGENCY_STOP;
    this.robotMode = RobotMode.POWER_OFF;
    this.arm.halt();
    this.stopRunner();
    this.runtime = 'STOPPED';
    this.safetyPopup = true;
    this.emit('event', 'emergency stop');
  }

  /** The e-stop button is released: safety is normal again, the arm stays powered off. */
  releaseEmergencyStop(): void {
    if (this.safetyMode !== SafetyMode.ROBOT_EMERGENCY_STOP) return;
    this.safetyMode = SafetyMode.NORMAL;
    this.emit('event', 'emergency stop released');
  }

  // ---- dashboard operations (reply text as the real Dashboard server sends it) --------------

  powerOnArm(): string {
    if (this.safetyMode !== SafetyMode.NORMAL) return 'Failed to execute: power on';
    if (this.robotMode < RobotMode.IDLE) this.robotMode = RobotMode.IDLE;
    return 'Powering on';
  }

  powerOffArm(): string {
    this.halt('power off');
    this.robotMode = RobotMode.POWER_OFF;
    return 'Powering off';
  }

  brakeRelease(): string {
    if (this.robotMode === RobotMode.IDLE && this.safetyMode === SafetyMode.NORMAL)
      this.robotMode = RobotMode.RUNNING;
    return 'Brake releasing';
  }

  /**
   * Starts the release: the safety mode stays PROTECTIVE_STOP and the robot mode IDLE until it
   * completes `releaseTime` later (tick()), so a program sent on the reply is refused.
   */
  unlockProtectiveStop(): string {
    if (this.safetyMode !== SafetyMode.PROTECTIVE_STOP || this.releaseDoneAt !== undefined)
      return 'Protective stop releasing';
    if (this.time - this.protectiveStopAt < this.unlockDelay) {
      return `Cannot unlock protective stop until ${this.unlockDelay}s after occurrence. Always inspect cause of protective stop before unlocking`;
    }
    this.robotMode = RobotMode.IDLE;
    this.releaseDoneAt = this.time + this.releaseTime;
    this.emit('event', 'protective stop releasing');
    return 'Protective stop releasing';
  }

  closeSafetyPopup(): string {
    this.safetyPopup = false;
    return 'closing safety popup';
  }

  play(): string {
    if (this.robotMode !== RobotMode.RUNNING || this.safetyMode !== SafetyMode.NORMAL)
      return 'Failed to execute: play';
    if (this.runtime === 'PAUSED' && this.runner) {
      // Resumes where it paused, as a real controller does; the console never relies on this
      // (recovery re-sends the program), and a stale command still ages out by the watchdog.
      this.runtime = 'PLAYING';
      return 'Starting program';
    }
    if (this.runtime === 'PLAYING') return 'Starting program';
    if (!this.lastScript) return 'Failed to execute: play';
    this.startScript(this.lastScript);
    return 'Starting program';
  }

  stopProgram(): string {
    if (this.runtime === 'STOPPED') return 'Failed to execute: stop';
    this.halt('dashboard stop');
    return 'Stopped';
  }

  pauseProgram(): string {
    if (this.runtime !== 'PLAYING') return 'Failed to execute: pause';
    this.runtime = 'PAUSED';
    this.arm.stopl(1.5);
    return 'Pausing program';
  }

  /** Runtime state code for RTDE. */
  get runtimeStateCode(): number {
    return RuntimeState[this.runtime];
  }
}
