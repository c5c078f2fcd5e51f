/**
 * The virtual NatNet server: streams rigid bodies like Motive, at 120 Hz by default, by multicast
 * or unicast, in NatNet 3.x or 4.1 layout. Poses come from a pose source, planar table-frame poses
 * keyed by rigid-body name: a static scene, or a callback into a running MuJoCo world
 * (setPoseSource). They are carried into the motion-capture frame through the inverse of a
 * calibration (Y-up by default, as Motive streams), so the console's client, binding and
 * calibration see exactly what they would see in the lab. Like a live camera system, every tracked
 * pose carries a small residual jitter (measurementNoise), so a scene at rest still streams poses
 * that differ from frame to frame; bit-identical poses are what a frozen Motive sends. Faults:
 * pose noise, lost tracking, a frozen stream, a replay of old frames and a restart (here),
 * latency, dropped, reordered and corrupted packets (in the transport).
 */
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import {
  identityCalibration,
  mocapOrientation,
  mocapPoint,
  type Calibration,
} from '../calibration/mocap-table';
import { monotonicNanoseconds } from '../common/clock';
import { formatVersion } from '../mocap/version';
import { DEFAULT_COMMAND_PORT, DEFAULT_DATA_PORT } from '../mocap/message-ids';
import { emptyFrame, type FrameOfData, type RigidBodyData } from '../mocap/messages/frame';
import type { ModelDefinitions } from '../mocap/messages/model-def';
import { encodePacket } from '../mocap/packet';
import { yawQuat } from '../common/rotation';
import type { PivotTruth } from './pivot-truth';
import { FrameSchedule } from './frame-schedule';
import { natNetFaultsSchema, SeededRandom, type NatNetFaults, type NatNetFaultsInput } from './natnet-faults';
import { NatNetServerTransport, type NatNetTransportOptions } from './natnet-transport';

export interface VirtualRigidBody {
  id: number;
  name: string;
}

/** A planar pose in the table frame (m, m, rad) and the body's height above the table (m). */
export interface TablePose {
  x: number;
  y: number;
  theta: number;
  z?: number;
}

/** Current poses by rigid-body name; a name left out is streamed as not tracked. */
export type PoseSource = () => ReadonlyMap<string, TablePose>;

export interface VirtualNatNetServerOptions extends Partial<NatNetTransportOptions> {
  rigidBodies: VirtualRigidBody[];
  rateHz?: number;
  /** Mocap -> table calibration the client will use; its up axis is the stream's up axis. */
  calibration?: Calibration;
  faults?: NatNetFaultsInput;
  /** Simulated camera mid-exposure -> transmit time (s), stamped into each frame. */
  exposureLatency?: number;
  /**
   * Standard deviations of the residual jitter of a tracked rigid body at rest: position (m) and
   * yaw (rad). Defaults to a calibrated OptiTrack system's figures (0.02 mm, 0.01 deg).
   */
  measurementNoise?: { position: number; yaw: number };
  /**
   * Where each body's pivot is (by rigid-body name; a body left out has its pivot on the object, as
   * after Motive's reset): Motive puts a new body's pivot at its markers' centroid, its axes along
   * the world's at creation (virtual-lab/pivot-truth.ts).
   */
  pivots?: Readonly<Record<string, PivotTruth>>;
  /**
   * Number of the first frame (default 1). Motive's frame counter is a signed 32-bit number that
   * wraps from 2^31 - 1 to -2^31 (after 207 days at 120 Hz): start near that to stream the wrap.
   */
  firstFrameNumber?: number;
}

export const DEFAULT_MEASUREMENT_NOISE = { position: 2e-5, yaw: 2e-4 };

/** Camera mid-exposure to transmit, s, of an on-time pipeline (exposureLatency's default). */
export const DEFAULT_EXPOSURE_LATENCY = 0.004;

/** Frames kept for a replay (NatNetFaults.replay's largest value: 10 s at 120 Hz). */
const HISTORY = 1200;

/** The longest backlog a stalled event loop leaves to send late (s); the camera clock jumps over older frames. */
const MAX_BACKLOG = 0.25;

interface BuiltFrame {
  frameNumber: number;
  frame: FrameOfData;
  packet: Uint8Array;
}

export interface SentFrame {
  frameNumber: number;
  /** Local monotonic time (ns) the frame was built and handed to the socket. */
  sentAtNs: bigint;
  /** Local monotonic time (ns) the frame was due on the camera clock (its transmit time had it been on time). */
  dueAtNs: bigint;
}

/** Frames the stream could not send on time because this thread's event loop was held up. */
export interface StreamLateness {
  /** Frames sent more than a period after they were due (a backlog sent at once). */
  framesLate: number;
  /** Frames never taken: due longer ago than the backlog holds, the camera clock jumped over them. */
  framesSkipped: number;
  /** The most overdue frame sent so far (s). */
  longestLate: number;
}

export class VirtualNatNetServer {
  readonly transport: NatNetServerTransport;
  private readonly rigidBodies: VirtualRigidBody[];
  private readonly rateHz: number;
  private readonly calibration: Calibration;
  private readonly exposureTicks: bigint;
  private readonly measurementNoise: { position: number; yaw: number };
  private readonly pivots: Readonly<Record<string, PivotTruth>>;
  private poseSource: PoseSource = () => new Map();
  private faults: NatNetFaults;
  private random: SeededRandom;
  private frameNumber = 0;
  /** The last frame built and its encoding: what a frozen stream repeats. */
  private latestFrame: FrameOfData | undefined;
  private latest: Uint8Array | undefined;
  /** The frames sent live, newest last, at most HISTORY: what a replay streams again. */
  private history: BuiltFrame[] = [];
  /** The frames a replay is streaming in a loop, and the next one's index. */
  private replaying: { frames: BuiltFrame[]; next: number } | undefined;
  /** Motive is restarting (restart()): no frames. */
  private restarting = false;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly sendListeners: ((f: SentFrame) => void)[] = [];
  /** How far the streaming fell behind the camera clock (a stalled event loop), for tests and benches. */
  readonly lateness: StreamLateness = { framesLate: 0, framesSkipped: 0, longestLate: 0 };

  constructor(options: VirtualNatNetServerOptions) {
    this.rigidBodies = options.rigidBodies;
    this.rateHz = options.rateHz ?? 120;
    if (!(this.rateHz > 0 && this.rateHz <= 1000))
      throw new RangeError(`rate ${this.rateHz} Hz is out of range (0, 1000]`);
    this.calibration = options.calibration ?? identityCalibration('y');
    this.measurementNoise = options.measurementNoise ?? DEFAULT_MEASUREMENT_NOISE;
    this.pivots = options.pivots ?? {};
    this.frameNumber = ((options.firstFrameNumber ?? 1) - 1) | 0;
    this.faults = natNetFaultsSchema.parse(options.faults ?? {});
    this.random = new SeededRandom(this.faults.seed);
    this.transport = new NatNetServerTransport(
      {
        address: options.address ?? '127.0.0.1',
        commandPort: options.commandPort ?? DEFAULT_COMMAND_PORT,
        dataPort: options.dataPort ?? DEFAULT_DATA_PORT,
        multicast: options.multicast ?? true,
        multicastGroup: options.multicastGroup,
        multicastInterface: options.multicastInterface,
        multicastTtl: options.multicastTtl,
        natNetVersion: options.natNetVersion ?? [3, 1, 0, 0],
        ...(options.newestNatNet ? { newestNatNet: options.newestNatNet } : {}),
        ...(options.streaming ? { streaming: options.streaming } : {}),
        appName: options.appName,
        appVersion: options.appVersion,
        clockFrequency: options.clockFrequency,
        clientTimeout: options.clientTimeout,
      },
      {
        modelDefinitions: () => this.modelDefinitions(),
        frameRate: () => this.rateHz,
        latestFrame: (v) =>
          this.latestFrame && formatVersion(v) !== formatVersion(this.transport.version)
            ? encodePacket({ kind: 'frame', ...this.latestFrame }, v)
            : this.latest,
      },
    );
    this.transport.setFaults(this.faults);
    this.exposureTicks = BigInt(
      Math.round((options.exposureLatency ?? DEFAULT_EXPOSURE_LATENCY) * this.transport.clockFrequency),
    );
  }

  /** Streams the scene's initial poses; rigid bodies named by rigidBody (or the slider id / "pusher"). */
  static fromScene(
    scene: Scene,
    options: Omit<VirtualNatNetServerOptions, 'rigidBodies'> = {},
  ): VirtualNatNetServer {
    const bodies = sceneRigidBodies(scene);
    const server = new VirtualNatNetServer({ ...options, rigidBodies: bodies });
    const poses = new Map<string, TablePose>();
    const tool = endEffectorOf(scene);
    const [x, y] = tool.start;
    const theta = tool.slots.yaw === undefined ? 0 : tool.start[tool.slots.yaw]!;
    poses.set(bodies[0]!.name, { x: x!, y: y!, theta, z: tool.height / 2 });
    scene.sliders.forEach((s, i) => poses.set(bodies[i + 1]!.name, { ...s.pose, z: s.shape.height / 2 }));
    server.setPoseSource(() => poses);
    return server;
  }

  setPoseSource(source: PoseSource): void {
    this.poseSource = source;
  }

  setFaults(faults: NatNetFaultsInput): void {
    this.faults = natNetFaultsSchema.parse(faults);
    this.random = new SeededRandom(this.faults.seed);
    this.transport.setFaults(this.faults);
    // A new replay loops over the frames sent live up to now.
    this.replaying = undefined;
  }

  /**
   * Motive quits and starts again `downtime` s later (resolves then): meanwhile no frames and no
   * answers; afterwards its unicast clients must connect again (transport.setDown), and its frames
   * are numbered from 1 again, as a restarted Motive numbers them.
   */
  async restart(downtime: number): Promise<void> {
    this.restarting = true;
    this.transport.setDown(true);
    await new Promise((resolve) => setTimeout(resolve, downtime * 1000));
    this.frameNumber = 0;
    this.latest = undefined;
    this.latestFrame = undefined;
    this.history = [];
    this.replaying = undefined;
    this.transport.setDown(false);
    this.restarting = false;
  }

  onFrameSent(fn: (f: SentFrame) => void): void {
    this.sendListeners.push(fn);
  }

  /** Resolves with the next frame handed to the socket (dropped or not). */
  nextFrameSent(): Promise<SentFrame> {
    return new Promise((resolve) => {
      const once = (f: SentFrame): void => {
        this.sendListeners.splice(this.sendListeners.indexOf(once), 1);
        resolve(f);
      };
      this.sendListeners.push(once);
    });
  }

  /** Camera mid-exposure to transmit, s, as the frames are stamped. */
  get exposureLatency(): number {
    return Number(this.exposureTicks) / this.transport.clockFrequency;
  }

  get commandPort(): number {
    return this.transport.commandPort;
  }

  modelDefinitions(): ModelDefinitions {
    return {
      models: this.rigidBodies.map((rb) => ({
        kind: 'rigidBody' as const,
        name: rb.name,
        id: rb.id,
        parentId: -1,
        offset: [0, 0, 0],
        markers: [],
      })),
    };
  }

  /** Starts the sockets and, unless `stream` is false, the frame clock. */
  async start(stream = true): Promise<void> {
    await this.transport.start();
    if (stream) this.startStreaming();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.transport.stop();
  }

  /**
   * Sends every frame the camera clock (frame-schedule.ts) has made due, each stamped with its own
   * camera time: after a stalled event loop the frames it held up go out at once, late, as a
   * Motive host that fell behind sends them, and `lateness` counts them.
   */
  private startStreaming(): void {
    this.running = true;
    const periodNs = BigInt(Math.round(1e9 / this.rateHz));
    const schedule = new FrameSchedule(
      monotonicNanoseconds(),
      periodNs,
      Math.ceil(MAX_BACKLOG * this.rateHz),
    );
    const tick = (): void => {
      if (!this.running) return;
      const { slots, skipped } = schedule.due(monotonicNanoseconds());
      if (!this.restarting) {
        this.lateness.framesSkipped += skipped;
        for (const slot of slots) {
          const late = this.step(slot).sentAtNs - slot;
          if (late > periodNs) this.lateness.framesLate++;
          this.lateness.longestLate = Math.max(this.lateness.longestLate, Number(late) / 1e9);
        }
      }
      this.timer = setTimeout(tick, schedule.msUntilNext(monotonicNanoseconds()));
    };
    tick();
  }

  /**
   * Builds and sends one frame from the current poses. Frozen on 'frame': the last frame again;
   * on 'poses': the last frame's poses under a new frame number and timestamps. Replaying: the
   * next of the replayed frames, as it was sent. `dueAtNs` is when the camera clock made it due
   * (common/clock monotonicNanoseconds; default now): its exposure times are stamped from that, its transmit time
   * is when it actually leaves.
   */
  step(dueAtNs: bigint = monotonicNanoseconds()): SentFrame {
    if (this.faults.replay > 0 && this.history.length > 0) {
      this.replaying ??= { frames: this.history.slice(-this.faults.replay), next: 0 };
      const r = this.replaying;
      const old = r.frames[r.next]!;
      r.next = (r.next + 1) % r.frames.length;
      this.frameNumber = nextFrameNumber(this.frameNumber);
      return this.send(old, dueAtNs);
    }
    if (this.faults.freeze === 'frame' && this.latest && this.latestFrame)
      return this.send(
        { frameNumber: this.frameNumber, frame: this.latestFrame, packet: this.latest },
        dueAtNs,
      );
    this.frameNumber = nextFrameNumber(this.frameNumber);
    const frame = emptyFrame(this.frameNumber);
    if (this.faults.freeze === 'poses' && this.latestFrame) {
      frame.rigidBodies = this.latestFrame.rigidBodies;
    } else {
      const poses = this.poseSource();
      frame.rigidBodies = this.rigidBodies.map((rb) => this.rigidBodyData(rb, poses.get(rb.name)));
    }
    // On time, a frame leaves when it is due; the cameras exposed it exposureLatency before.
    const due = this.transport.ticksAt(dueAtNs);
    frame.transmit = this.transport.ticks();
    frame.dataReceived = due > this.exposureTicks / 2n ? due - this.exposureTicks / 2n : 0n;
    frame.cameraMidExposure = due > this.exposureTicks ? due - this.exposureTicks : 0n;
    frame.timestamp = Number(frame.cameraMidExposure) / this.transport.clockFrequency;
    const packet = encodePacket({ kind: 'frame', ...frame }, this.transport.version);
    this.latestFrame = frame;
    this.latest = packet;
    const built = { frameNumber: this.frameNumber, frame, packet };
    this.history.push(built);
    if (this.history.length > HISTORY) this.history.shift();
    return this.send(built, dueAtNs);
  }

  /** Hands a built frame to the transport, which re-encodes it for a client of another bitstream. */
  private send(built: BuiltFrame, dueAtNs: bigint): SentFrame {
    const sent = { frameNumber: built.frameNumber, sentAtNs: monotonicNanoseconds(), dueAtNs };
    this.transport.sendFrame(built.packet, (v) => encodePacket({ kind: 'frame', ...built.frame }, v));
    // A copy: one-shot listeners remove themselves while the list is walked.
    for (const fn of [...this.sendListeners]) fn(sent);
    return sent;
  }

  private rigidBodyData(rb: VirtualRigidBody, pose: TablePose | undefined): RigidBodyData {
    const lost = pose === undefined || this.faults.lostTracking.includes(rb.name);
    if (pose === undefined)
      return { id: rb.id, position: [0, 0, 0], orientation: [0, 0, 0, 1], meanError: 0, params: 0 };
    // Residual jitter and injected noise are independent: their variances add.
    const n = (a: number, b: number): number => {
      const sd = Math.hypot(a, b);
      return sd > 0 ? sd * this.random.normal() : 0;
    };
    const positionSd = [this.measurementNoise.position, this.faults.positionNoise] as const;
    // Motive streams the pivot: the markers' centroid, its axes turned back by the creation yaw.
    const pivot = this.pivots[rb.name] ?? { markers: [0, 0, 0], creationYaw: 0 };
    const [mx, my, mz] = pivot.markers;
    const c = Math.cos(pose.theta);
    const s = Math.sin(pose.theta);
    const table: [number, number, number] = [
      pose.x + c * mx - s * my + n(...positionSd),
      pose.y + s * mx + c * my + n(...positionSd),
      (pose.z ?? 0) + mz + n(...positionSd),
    ];
    const yaw = pose.theta - pivot.creationYaw + n(this.measurementNoise.yaw, this.faults.yawNoise);
    return {
      id: rb.id,
      position: mocapPoint(this.calibration, table),
      orientation: mocapOrientation(this.calibration, yawQuat(yaw)),
      meanError: 0.0002 + n(...positionSd) ** 2,
      params: lost ? 0 : 1,
    };
  }
}

/** The frame counter's next value: a signed 32-bit number, as Motive's, so it wraps. */
function nextFrameNumber(n: number): number {
  return (n + 1) | 0;
}

/** Rigid bodies of a scene: the robot (its tool) first (id 1), then each slider (ids 2...). */
export function sceneRigidBodies(scene: ToolEntries & Pick<Scene, 'sliders'>): VirtualRigidBody[] {
  const tool = endEffectorOf(scene);
  return [
    { id: 1, name: tool.rigidBody ?? tool.slots.name },
    ...scene.sliders.map((s, i) => ({ id: i + 2, name: s.rigidBody ?? s.id })),
  ];
}
