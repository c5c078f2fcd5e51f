/**
 * SessionRecorder: writes one session log. The run calls the typed methods (or records its
 * console events through `event()`); each message gets the monotonic and the wall-clock stamp
 * and goes into the live file (live-writer.ts), which reaches the disk several times a second.
 * close() rewrites the file as an indexed MCAP with its summary (finalize.ts). Runs record through
 * src-main/run/run-recorder.ts, which owns one of these per run.
 *
 * Beside our own channels it writes the Foxglove views of the same data (foxglove.ts): the event
 * log as foxglove.Log, the lab's frames as foxglove.FrameTransforms (fixed frames once a second,
 * the tool and the rigid bodies at up to 30 Hz), and the table, objects and plan as
 * foxglove.SceneUpdate. The scene comes with settings(), the frames with setup().
 *
 * MCAP log time: the wall clock at the start of the recording plus the monotonic time since, in
 * ns. It never jumps with the wall clock, and Foxglove still shows real dates.
 *
 * A lock file next to the log names the recording process (pid, host, start time: session-lock.ts),
 * so that a console starting while another process records does not "recover" a log that is still
 * being written.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ConsoleEvent } from '#contract/console-api';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { wallSeconds } from '#contract/time';
import type { MocapSnapshot, PlanarPoses } from '../mocap/scene-binding';
import type { MocapStats } from '../mocap/stats';
import type { RobotState } from '../robot/robot-state';
import type { Decision } from '../safety/supervisor';
import type { Setup } from '../calibration/setup-file';
import { monotonicSeconds } from '../common/clock';
import { withoutNulls } from './absent-nulls';
import {
  channelJsonSchema,
  hasNullableFields,
  isFoxgloveTopic,
  schemaName,
  topics,
  type PayloadOf,
  type Topic,
} from './channels';
import { finalizeSessionLog } from './finalize';
import {
  foxgloveLog,
  foxgloveTime,
  objectsScene,
  planScene,
  rigidBodyTransforms,
  setupTransforms,
  tableScene,
  toolTransform,
} from './foxglove';
import { LiveMcapFile } from './live-writer';
import { loggedPlannerStep, namedState, rigidBodyFields, tcpPoseFields, tcpSpeedFields } from './named-state';
import { writeSessionLock } from './session-lock';
import type { SessionSummary } from './session-summary';
import { lockFileOf, sessionFileName } from './sessions-dir';
import { softwareVersion } from './software-version';

export const SESSION_PROFILE = 'parapush-session';

export interface SessionRecorderOptions {
  /** Folder the log goes into (created if missing). */
  dir: string;
  /** Ends the file name, e.g. "dry" or "real". */
  label: string;
  origin: PayloadOf<'/session/info'>['origin'];
  flushInterval?: number;
  /**
   * Told about a write error once; recording stops at it (the run goes on). Also told, once per
   * kind, about a message that could not be recorded (it is left out; the run goes on).
   */
  onError?: (err: Error) => void;
  /** Also told every message as it is written (a live view: foxglove-live.ts). */
  tap?: MessageTap;
}

/** Takes every message a recorder writes: its topic, its log time (ns) and its JSON bytes. */
export type MessageTap = (topic: Topic, logTime: bigint, data: Uint8Array<ArrayBuffer>) => void;

/** Highest rate of the derived Foxglove frames and objects (Hz): enough for a smooth 3D view. */
const FOXGLOVE_RATE_HZ = 30;
/** The fixed frames and the static scene are written again this often (s), for seeking. */
const STATIC_PERIOD = 1;

const encoder = new TextEncoder();

/** Channels with nullable fields: their null fields are left out of the log (absent-nulls.ts). */
const nullableTopics = new Set(topics.filter(hasNullableFields));

export class SessionRecorder {
  readonly sessionId = randomUUID();
  private readonly channelIds: Map<Topic, number>;
  private readonly sequences: number[];
  /** The monotonic clock at the start, s. */
  private readonly startMono: number;
  private readonly startWallNs: bigint;
  private closing: Promise<SessionSummary> | undefined;
  private scene: Scene | null = null;
  private setupFile: Setup | null = null;
  /** The monotonic clock at the last message of each rate-limited Foxglove view, s. */
  private readonly lastAt = { static: -Infinity, tool: -Infinity, bodies: -Infinity, objects: -Infinity };
  private readonly reported = new Set<string>();

  private constructor(
    readonly file: string,
    private readonly live: LiveMcapFile,
    startWall: number,
    startMono: number,
    private readonly onError: (err: Error) => void,
    private readonly tap: MessageTap | undefined,
  ) {
    this.startMono = startMono;
    this.startWallNs = BigInt(Math.round(startWall * 1000)) * 1_000_000n;
    this.channelIds = new Map(topics.map((t, i) => [t, i + 1]));
    this.sequences = topics.map(() => 0);
  }

  static async create(o: SessionRecorderOptions): Promise<SessionRecorder> {
    mkdirSync(o.dir, { recursive: true });
    const startWall = wallSeconds();
    const startMono = monotonicSeconds();
    const file = path.join(o.dir, sessionFileName(startWall, o.label));
    await writeSessionLock(file);
    const version = softwareVersion();
    const live = await LiveMcapFile.create(
      file,
      { profile: SESSION_PROFILE, library: `${version.name} ${version.version}` },
      { flushInterval: o.flushInterval, onError: o.onError },
    );
    // One schema record per schema name (the three Foxglove scene channels share theirs).
    const schemaIds = new Map<string, number>();
    topics.forEach((topic, i) => {
      const name = schemaName(topic);
      let schemaId = schemaIds.get(name);
      if (schemaId === undefined) {
        schemaId = schemaIds.size + 1;
        schemaIds.set(name, schemaId);
        live.addSchema({
          id: schemaId,
          name,
          encoding: 'jsonschema',
          data: encoder.encode(JSON.stringify(channelJsonSchema(topic))),
        });
      }
      live.addChannel({ id: i + 1, schemaId, topic, messageEncoding: 'json', metadata: new Map() });
    });
    const recorder = new SessionRecorder(
      file,
      live,
      startWall,
      startMono,
      o.onError ?? (() => undefined),
      o.tap,
    );
    recorder.record('/session/info', {
      sessionId: recorder.sessionId,
      software: version,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      origin: o.origin,
    });
    await live.flush();
    return recorder;
  }

  /** Bytes on the disk so far. */
  get bytesWritten(): number {
    return this.live.bytesWritten;
  }

  /** Records one message on a channel; cheap enough for the 500 Hz robot state. */
  record<T extends Topic>(topic: T, payload: PayloadOf<T>, at = monotonicSeconds()): void {
    if (this.closing) return;
    const logTime = this.logTime(at);
    const body = JSON.stringify(payload, nullableTopics.has(topic) ? withoutNulls : undefined);
    let text = body;
    if (!isFoxgloveTopic(topic)) {
      // The stamps go first (the summary reads "wall" from the head of a message); building the
      // text by hand saves copying the payload into a new object at 500 Hz.
      const stamp = `{"mono":${at - this.startMono},"wall":${wallSeconds()}`;
      text = body.length > 2 ? `${stamp},${body.slice(1)}` : `${stamp}}`;
    }
    const index = this.channelIds.get(topic)!;
    const data = encoder.encode(text);
    this.live.addMessage({
      channelId: index,
      sequence: this.sequences[index - 1]!++,
      logTime,
      publishTime: logTime,
      data,
    });
    this.tap?.(topic, logTime, data);
  }

  /** The scene and planner settings of the run; the scene is what the 3D views draw. */
  settings(mode: 'dry' | 'real', scene: Scene, settings: PlannerSettings): void {
    this.scene = scene;
    this.record('/session/settings', { mode, scene, settings });
    this.writeStatic(monotonicSeconds(), true);
  }

  /** The lab setup of the run: the fixed frames (table, motion capture, robot base). */
  setup(setup: Setup): void {
    this.setupFile = setup;
    this.writeStatic(monotonicSeconds(), true);
  }

  /** A frame as the client named it, and the frame's own timestamp (s, the server's clock) when known. */
  mocapFrame(frame: MocapSnapshot, timestamp?: number): void {
    const now = monotonicSeconds();
    this.record(
      '/mocap/frame',
      {
        frameNumber: frame.frameNumber,
        receivedAt: frame.receivedAt,
        ...(timestamp !== undefined ? { timestamp } : {}),
        ...(frame.systemLatency !== undefined ? { systemLatency: frame.systemLatency } : {}),
        rigidBodies: frame.rigidBodies.map(rigidBodyFields),
      },
      now,
    );
    const setup = this.setupFile;
    if (setup && this.due('bodies', now)) {
      const transforms = rigidBodyTransforms(frame, setup.mocap.upAxis, this.time(now));
      if (transforms.length > 0) this.record('/foxglove/tf', { transforms }, now);
    }
    this.writeStatic(now);
  }

  /** The motion-capture stream's counters (mocap/stats.ts) as they stand. */
  mocapStats(stats: MocapStats): void {
    this.record('/mocap/stats', {
      frames: stats.frames,
      frameRate: stats.frameRate,
      droppedFrames: stats.droppedFrames,
      olderFrames: stats.olderFrames,
      unconfirmedFrames: stats.unconfirmedFrames,
      repeatedFrames: stats.repeatedFrames,
      restarts: stats.restarts,
      decodeErrors: stats.decodeErrors,
      foreignPackets: stats.foreignPackets,
      spoofSigns: stats.spoofSigns,
    });
  }

  poses(poses: PlanarPoses): void {
    // A body never seen has no age (Infinity, which JSON cannot hold): null. The streamed pose
    // (`raw`) is on /mocap/frame already.
    const estimate = <T extends PlanarPoses['pusher']>({ raw: _raw, ...b }: T) => ({
      ...b,
      rigidBody: b.rigidBody ?? null,
      age: Number.isFinite(b.age) ? b.age : null,
    });
    this.record('/mocap/poses', {
      ...poses,
      pusher: estimate(poses.pusher),
      sliders: poses.sliders.map(estimate),
    });
  }

  robotState(state: RobotState): void {
    const now = monotonicSeconds();
    this.record(
      '/robot/state',
      { ...state, tcpPose: tcpPoseFields(state.tcpPose), tcpSpeed: tcpSpeedFields(state.tcpSpeed) },
      now,
    );
    if (this.due('tool', now))
      this.record('/foxglove/tf', { transforms: [toolTransform(state.tcpPose, this.time(now))] }, now);
    this.writeStatic(now);
  }

  command(
    kind: 'twist' | 'stop',
    sequence: number | null,
    vx: number,
    vy: number,
    acceleration: number,
    yawRate?: number,
  ): void {
    this.record('/robot/command', {
      kind,
      sequence,
      vx,
      vy,
      acceleration,
      ...(yawRate !== undefined ? { yawRate } : {}),
    });
  }

  decision(decision: Decision): void {
    this.record('/supervisor/decision', decision);
  }

  operator(action: string, detail: string): void {
    this.record('/operator/action', { action, detail });
  }

  outcome(outcome: string, detail: string | null): void {
    this.record('/run/outcome', { outcome, detail });
  }

  /** The planner's prediction error of one executed control. */
  predictionError(e: PayloadOf<'/planner/prediction-error'>): void {
    this.record('/planner/prediction-error', e);
  }

  /** The prediction model the run plans with: asked for, used, and auto's reason. */
  model(choice: PayloadOf<'/run/model'>): void {
    this.record('/run/model', choice);
  }

  /**
   * Records a console event of the run on its channel, with its Foxglove view; events that are
   * not the run's are ignored. Never throws: a message that cannot be recorded is reported
   * through onError and left out, and the run goes on.
   */
  event(event: ConsoleEvent): void {
    if (this.closing) return;
    const now = monotonicSeconds();
    try {
      switch (event.type) {
        case 'state': {
          const state = namedState(event.sliderIds, event.state);
          this.record('/scene/state', { time: event.time, ...state }, now);
          if (this.scene && this.due('objects', now))
            this.record('/foxglove/scene/objects', objectsScene(this.scene, state, this.time(now)), now);
          return this.writeStatic(now);
        }
        case 'planner-step': {
          const step = loggedPlannerStep(event.step);
          this.record('/planner/step', step, now);
          return this.record('/foxglove/scene/plan', planScene(step, this.time(now)), now);
        }
        case 'supervisor':
          this.record('/supervisor/event', { event }, now);
          return this.record('/foxglove/log', foxgloveLog(event, this.time(now))!, now);
        case 'log':
          this.record('/console/log', { event }, now);
          return this.record('/foxglove/log', foxgloveLog(event, this.time(now))!, now);
        case 'run':
          return this.record('/run/status', { event }, now);
        case 'lab':
          return this.record('/session/lab', { lab: event.lab }, now);
        default:
          return undefined;
      }
    } catch (err) {
      this.problem(`${event.type} event not recorded`, err as Error);
    }
  }

  /** Ends the recording: flushes, rewrites the log as an indexed MCAP, removes the lock. */
  close(): Promise<SessionSummary> {
    this.closing ??= (async () => {
      await this.live.close();
      const { summary } = await finalizeSessionLog(this.file, false);
      await rm(lockFileOf(this.file), { force: true });
      return summary;
    })();
    return this.closing;
  }

  private logTime(at: number): bigint {
    return this.startWallNs + BigInt(Math.round((at - this.startMono) * 1e9));
  }

  private time(at: number) {
    return foxgloveTime(this.logTime(at));
  }

  /** Whether a rate-limited view is due again (and, if so, marks it written now). */
  private due(view: keyof SessionRecorder['lastAt'], at: number): boolean {
    const period = view === 'static' ? STATIC_PERIOD : 1 / FOXGLOVE_RATE_HZ;
    if (at - this.lastAt[view] < period) return false;
    this.lastAt[view] = at;
    return true;
  }

  /**
   * The fixed frames and the table scene, now and then once a second: a viewer that seeks into
   * the log finds them close before any point.
   */
  private writeStatic(at: number, force = false): void {
    if (!this.scene && !this.setupFile) return;
    if (force) this.lastAt.static = at;
    else if (!this.due('static', at)) return;
    const time = this.time(at);
    if (this.setupFile)
      this.record('/foxglove/tf', { transforms: setupTransforms(this.setupFile, time) }, at);
    if (this.scene) this.record('/foxglove/scene/table', tableScene(this.scene, time), at);
  }

  private problem(what: string, err: Error): void {
    const message = `${what}: ${err.message}`;
    if (this.reported.has(message)) return;
    this.reported.add(message);
    this.onError(new Error(message, { cause: err }));
  }
}
