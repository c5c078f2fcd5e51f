/**
 * The virtual lab's physical world: MuJoCo stepped in real time, in which the robot follows the
 * virtual arm's tool and the sliders are pushed by it. The arm (virtual UR) and the cameras
 * (virtual NatNet server) see this world the way the real ones see the table.
 *
 * The robot is the scene's tool (contract/end-effector): a pusher, or a gripper whose body follows
 * the arm's tool position and yaw and whose fingers the virtual Robotiq drives (`fingers`). Each is driven by the tool's velocity plus a small correction of the position
 * error, so it tracks the tool without drifting; process noise (Gaussian, on every body's velocity
 * at every step while the robot moves, as in the papers' execution worlds, which step only while a
 * control executes) makes the world less predictable than the planner's.
 *
 * The world may differ from the scene (world-physics.ts): its objects heavier, grippier or
 * slicker than the scene says, and its motion capture late: the cameras then see the world as it
 * was `mocapLatency` s before (a history of its states, interpolated).
 */
import type { EndEffector } from '#contract/end-effector/end-effector';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { initialState, layoutForScene, wrapAngle, type State, type StateLayout } from '#contract/state';
import { FineModel } from '#physics/fine-model';
import { PUSHER_CLEARANCE } from '#physics/mjcf';
import { FINGER_TOLERANCE, type FingerDrive } from './virtual-gripper';
import type { RobotAdapter } from '../robot/adapter';
import { Rng } from '../common/rng';
import { every } from '../common/timers';
import type { TablePose } from './natnet-server';
import { sceneRigidBodies } from './natnet-server';
import { StateHistory } from './state-history';
import { physicsScale, SCENE_PHYSICS, type WorldPhysics } from './world-physics';
import { monotonicSeconds } from '../common/clock';

export interface ToolMotion {
  pose: readonly number[];
  velocity: readonly number[];
  /** Angular velocity about base z, rad/s (0: the tool does not turn). */
  yawRate?: number;
}

export interface LabWorldOptions {
  /** Variance of the velocity noise added at every MuJoCo step ((m/s)^2); 0 for none. */
  noiseVariance: number;
  seed: number;
  /** Gain of the pusher's position correction towards the tool (1/s). */
  trackingGain?: number;
  /** Wall-clock interval of the stepping timer (s). */
  tick?: number;
  /** How the world's physics differs from the scene's (default: not at all). */
  physics?: WorldPhysics;
  /** s the cameras lag the world: poses() shows it as it was that long ago (default 0). */
  mocapLatency?: number;
}

/** Tool speed below which the arm counts as at rest (m/s): a tenth of a millimetre per second. */
const MOVING_SPEED = 1e-4;

/**
 * Time constant of the filter on the tool's contact force, s: a real controller judges its force
 * limit on a force estimated from joint torques, not on single solver steps, so the first touch's
 * contact impulse (a few ms) does not count at its peak.
 */
const FORCE_FILTER_TIME = 0.02;

/** Fingers this long below a fifth of their commanded speed, away from their target, have stalled (s). */
const STALL_TIME = 0.05;

export class LabWorld {
  readonly layout: StateLayout;
  private readonly names: string[];
  private readonly rng: Rng;
  private readonly noiseStd: number;
  private readonly trackingGain: number;
  /** Height of the robot's rigid body above the table (m): the pusher's or the gripper's centre. */
  private readonly robotZ: number;
  private motion: ToolMotion | undefined;
  /** The scene's tool (contract/end-effector). */
  private readonly tool: EndEffector;
  /** The fingers' target gap and speed (m, m/s), and since when (world time, s) they crawl. */
  private fingerCommand = { opening: 0, speed: 0, slowSince: null as number | null };
  private state: State;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private stepsDone = 0;
  /** Real-time steps dropped because the timer fell behind (diagnostics). */
  skippedSteps = 0;
  /** The robot's contact force in the table plane, filtered (N). */
  private force = 0;
  /** The world's recent states, for cameras that lag it; undefined when they do not. */
  private readonly history: StateHistory | undefined;

  private constructor(
    private readonly scene: Scene,
    private readonly fine: FineModel,
    private readonly adapter: RobotAdapter,
    private readonly options: LabWorldOptions,
  ) {
    this.tool = endEffectorOf(scene);
    this.robotZ = this.tool.height / 2 + PUSHER_CLEARANCE;
    this.layout = layoutForScene(scene);
    this.names = sceneRigidBodies(scene).map((b) => b.name);
    this.rng = new Rng(options.seed);
    this.noiseStd = Math.sqrt(options.noiseVariance);
    this.trackingGain = options.trackingGain ?? 20;
    this.state = initialState(scene);
    fine.writeState(this.state);
    this.holdFingers();
    const latency = options.mocapLatency ?? 0;
    if (latency > 0) {
      // Twice the lag: a late tick still finds the states on both sides of the time it shows.
      this.history = new StateHistory(2 * latency + 0.05, new Set(this.layout.angleIndices));
      this.history.reset(this.worldTime(), this.state);
    }
  }

  static async create(scene: Scene, adapter: RobotAdapter, options: LabWorldOptions): Promise<LabWorld> {
    const fine = await FineModel.create(scene);
    fine.scalePhysics(physicsScale(options.physics ?? SCENE_PHYSICS));
    return new LabWorld(scene, fine, adapter, options);
  }

  /** The arm reports its tool motion every control cycle. */
  setTool(motion: ToolMotion): void {
    this.motion = motion;
  }

  /** The tool's fingers (a gripper's), for the virtual Robotiq; undefined for a tool without. */
  get fingers(): FingerDrive | undefined {
    const slot = this.tool.slots.opening;
    if (slot === undefined) return undefined;
    const opening = (): number => this.state[slot]!;
    const maxOpening = this.tool.fingers?.maxOpening ?? 0;
    const stalled = (): boolean => {
      const since = this.fingerCommand.slowSince;
      return since !== null && this.stepsDone * this.fine.timestep - since >= STALL_TIME;
    };
    return {
      moveTo: (target, speed) => {
        this.fingerCommand = { opening: target, speed, slowSince: null };
      },
      get opening() {
        return opening();
      },
      get stalled() {
        return stalled();
      },
      maxOpening,
    };
  }

  /**
   * Poses by rigid-body name as the cameras see them, for the virtual motion-capture server: the
   * current ones, or those of `mocapLatency` s ago.
   */
  poses(): Map<string, TablePose> {
    const latency = this.options.mocapLatency ?? 0;
    // `latency` before the world's latest state: exactly that much later than cameras on time,
    // which see the latest state.
    return this.posesOf((this.history && this.history.at(this.worldTime() - latency)) ?? this.state);
  }

  /** The world's own current poses by rigid-body name, whatever the cameras lag. */
  truePoses(): Map<string, TablePose> {
    return this.posesOf(this.state);
  }

  private posesOf(state: State): Map<string, TablePose> {
    const L = this.layout;
    const m = new Map<string, TablePose>();
    const [px, py] = L.pusherPosition(state);
    // A held pusher turns with the tool (its markers with it: the arm's latest yaw, which changes
    // far slower than the cameras lag); a tool with a yaw of its own (a gripper's) has the world's.
    const yaw = this.tool.slots.yaw;
    const theta = yaw !== undefined ? state[yaw]! : this.motion ? this.adapter.toolYaw(this.motion.pose) : 0;
    m.set(this.names[0]!, { x: px, y: py, theta, z: this.robotZ });
    this.scene.sliders.forEach((s, i) =>
      m.set(this.names[i + 1]!, { ...L.sliderPose(state, i), z: s.shape.height / 2 }),
    );
    return m;
  }

  /** The time the world's state is of, on the same clock: its start plus the steps it has taken. */
  private worldTime(): number {
    return this.startedAt + this.stepsDone * this.fine.timestep;
  }

  /**
   * Puts the pusher and every slider back at rest on their start poses from the scene, as an
   * operator resets the table between runs. The tool must be there too (see VirtualLab.placeObjects),
   * or the pusher's tracking pulls it straight back.
   */
  placeScene(): void {
    this.state = initialState(this.scene);
    this.fine.writeState(this.state);
    this.holdFingers();
    // The table was reset while nobody watched: the next frame shows it reset, however late.
    this.history?.reset(this.worldTime(), this.state);
  }

  /**
   * Puts slider i at rest on `pose`, as a hand on the table moves an object: the fault of a table
   * that changes while a run waits (the operator confirming, the gripper gripping).
   *
   * The fine model writes planar states only whole, so the world's last read state, with the
   * slider moved, is written back (`FineModel.writeState`): that resets MuJoCo's data in place
   * (mj_resetData: time, contacts, solver warm start), keeps the robot's and the other sliders' poses and
   * velocities, and, given no control, also zeroes the robot's velocity command. The zero lasts
   * only until the next stepping tick, whose `driveRobot` sets the command from the tool's motion
   * before every MuJoCo step, so an arm that is moving keeps being tracked.
   */
  placeSlider(i: number, pose: { x: number; y: number; theta: number }): void {
    this.layout.setSlider(this.state, i, pose);
    this.fine.writeState(this.state);
  }

  /** The force the objects push back on the tool with, in the table plane, filtered (N). */
  toolForce(): number {
    return this.force;
  }

  snapshot(): State {
    return this.state.slice();
  }

  start(): void {
    this.startedAt = monotonicSeconds();
    this.stepsDone = 0;
    const tick = (): void => this.catchUp();
    this.timer = every(this.options.tick ?? 0.004, tick);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.stop();
    this.fine.dispose();
  }

  /** Steps the world up to the current wall-clock time. */
  private catchUp(): void {
    const dt = this.fine.timestep;
    const due = Math.floor((monotonicSeconds() - this.startedAt) / dt) - this.stepsDone;
    // After a long stall (a debugger, a loaded machine) jump ahead rather than burst.
    const maxBurst = Math.ceil(0.05 / dt);
    const steps = Math.min(due, maxBurst);
    if (due > maxBurst) this.skippedSteps += due - maxBurst;
    this.stepsDone += due;
    // The noise stands for the uncertainty of pushing, not for a table that shakes: an object at
    // rest stays at rest. Applied at rest too, it walked the untouched object about 10 mm in 5 s,
    // so every plan made while the arm held still was 3-8 mm off by the time it was checked, and
    // 68% of the steps of 20 console dry runs had to be planned twice.
    const noisy = this.noiseStd > 0 && this.robotMoving();
    for (let k = 0; k < steps; k++) {
      this.driveRobot(this.stepsDone - steps + k);
      if (noisy) this.fine.perturbVelocities(() => this.noiseStd * this.rng.normal());
      this.fine.advance(1);
    }
    if (steps > 0) {
      this.state = this.fine.readState();
      const k = 1 - Math.exp(-(steps * dt) / FORCE_FILTER_TIME);
      this.force += k * (this.fine.robotContactForce() - this.force);
      this.history?.push(this.worldTime(), this.state);
    }
  }

  /** Whether the arm moves the robot (its tool translating or turning) or the fingers move. */
  private robotMoving(): boolean {
    const t = this.motion;
    const tool =
      t !== undefined && (Math.hypot(...t.velocity.slice(0, 3)) > MOVING_SPEED || (t.yawRate ?? 0) !== 0);
    const c = this.fingerCommand;
    const slot = this.tool.slots.opening;
    const fingers =
      slot !== undefined && c.speed > 0 && Math.abs(c.opening - this.state[slot]!) > FINGER_TOLERANCE;
    return tool || fingers;
  }

  /** The fingers stay where the scene puts them until the Robotiq moves them. */
  private holdFingers(): void {
    const slot = this.tool.slots.opening;
    if (slot !== undefined) this.fingerCommand = { opening: this.state[slot]!, speed: 0, slowSince: null };
  }

  /** Sets the robot's velocity commands for the MuJoCo step `step` (its index since start). */
  private driveRobot(step: number): void {
    const x = this.fine.readState(this.state);
    const gain = this.trackingGain;
    // Per DOF of the tool: x and y follow the arm's tool, a yaw its yaw, an opening the fingers'
    // command; the arm at rest holds them still (the fingers still move).
    const robot = new Array<number>(this.layout.robotDofs).fill(0);
    const { yaw: yawSlot, opening: openingSlot } = this.tool.slots;
    if (this.motion) {
      const { pose, velocity, yawRate = 0 } = this.motion;
      const target = this.adapter.pusherPosition(pose);
      const v = this.adapter.pusherVelocity([...velocity, 0, 0, yawRate], pose);
      robot[0] = v.vx + gain * (target.x - x[0]!);
      robot[1] = v.vy + gain * (target.y - x[1]!);
      if (yawSlot !== undefined)
        robot[yawSlot] = yawRate + gain * wrapAngle(this.adapter.toolYaw(pose) - x[yawSlot]!);
    }
    if (openingSlot !== undefined)
      robot[openingSlot] = this.fingerSpeed(x, openingSlot, step * this.fine.timestep);
    this.fine.setControl(robot);
  }

  /**
   * The fingers' opening speed towards their target: proportional near it, capped at the
   * commanded speed; a stall is noted when they crawl while still away from it.
   */
  private fingerSpeed(x: State, slot: number, time: number): number {
    const c = this.fingerCommand;
    const opening = x[slot]!;
    const away = c.opening - opening;
    const u = Math.max(-c.speed, Math.min(c.speed, this.trackingGain * away));
    const rate = Math.abs(x[this.layout.velocityOffset + slot]!);
    const crawling = c.speed > 0 && Math.abs(away) > FINGER_TOLERANCE && rate < c.speed / 5;
    c.slowSince = crawling ? (c.slowSince ?? time) : null;
    return u;
  }
}
