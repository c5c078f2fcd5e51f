/**
 * SessionRecorder: writes one session log per run. The run calls the typed methods (or records
 * its console events through `sink()`); each message gets the monotonic and the wall-clock stamp
 * and goes into the live file (live-writer.ts), which reaches the disk several times a second.
 * close() rewrites the file as an indexed MCAP with its summary (finalize.ts).
 *
 * MCAP log time: the wall clock at the start of the recording plus the monotonic time since, in
 * ns. It never jumps with the wall clock, and Foxglove Studio still shows real dates.
 *
 * A lock file next to the log names the recording process (pid, host, start time: session-lock.ts),
 * so that a console starting while another process records does not "recover" a log that is still
 * being written.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { ConsoleEvent } from '../contract/console-api';
import type { PlannerSettings } from '../contract/planner-settings';
import type { Scene } from '../contract/scene';
import type { MocapSnapshot, PlanarPoses } from '../mocap/scene-binding';
import type { RobotState } from '../robot/robot-state';
import type { Decision } from '../safety/supervisor';
import { channelJsonSchema, schemaName, topics, type PayloadOf, type Topic } from './channels';
import { finalizeSessionLog } from './finalize';
import { LiveMcapFile } from './live-writer';
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
  flushIntervalMs?: number;
  /** Told about a write error once; recording stops at it (the run goes on). */
  onError?: (err: Error) => void;
}

const encoder = new TextEncoder();

export class SessionRecorder {
  readonly sessionId = randomUUID();
  private readonly channelIds: Map<Topic, number>;
  private readonly sequences: number[];
  private readonly startPerf: number;
  private readonly startWallNs: bigint;
  private closing: Promise<SessionSummary> | undefined;

  private constructor(
    readonly file: string,
    private readonly live: LiveMcapFile,
    startWall: number,
    startPerf: number,
  ) {
    this.startPerf = startPerf;
    this.startWallNs = BigInt(Math.round(startWall)) * 1_000_000n;
    this.channelIds = new Map(topics.map((t, i) => [t, i + 1]));
    this.sequences = topics.map(() => 0);
  }

  static async create(o: SessionRecorderOptions): Promise<SessionRecorder> {
    mkdirSync(o.dir, { recursive: true });
    const startWall = Date.now();
    const startPerf = performance.now();
    const file = path.join(o.dir, sessionFileName(startWall, o.label));
    await writeSessionLock(file);
    const version = softwareVersion();
    const live = await LiveMcapFile.create(
      file,
      { profile: SESSION_PROFILE, library: `${version.name} ${version.version}` },
      { flushIntervalMs: o.flushIntervalMs, onError: o.onError },
    );
    topics.forEach((topic, i) => {
      live.addSchema({
        id: i + 1,
        name: schemaName(topic),
        encoding: 'jsonschema',
        data: encoder.encode(JSON.stringify(channelJsonSchema(topic))),
      });
      live.addChannel({ id: i + 1, schemaId: i + 1, topic, messageEncoding: 'json', metadata: new Map() });
    });
    const recorder = new SessionRecorder(file, live, startWall, startPerf);
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
  record<T extends Topic>(topic: T, payload: PayloadOf<T>): void {
    if (this.closing) return;
    const nowPerf = performance.now();
    const monoNs = BigInt(Math.round((nowPerf - this.startPerf) * 1e6));
    const logTime = this.startWallNs + monoNs;
    // The stamps go first (the summary reads "wall" from the head of a message); building the
    // text by hand saves copying the payload into a new object at 500 Hz.
    const body = JSON.stringify(payload);
    const stamp = `{"mono":${(nowPerf - this.startPerf) / 1000},"wall":${Date.now()}`;
    const text = body.length > 2 ? `${stamp},${body.slice(1)}` : `${stamp}}`;
    const index = this.channelIds.get(topic)!;
    this.live.addMessage({
      channelId: index,
      sequence: this.sequences[index - 1]!++,
      logTime,
      publishTime: logTime,
      data: encoder.encode(text),
    });
  }

  settings(mode: 'dry' | 'real', scene: Scene, settings: PlannerSettings): void {
    this.record('/session/settings', { mode, scene, settings });
  }

  mocapFrame(frame: MocapSnapshot): void {
    this.record('/mocap/frame', {
      frameNumber: frame.frameNumber,
      receivedAt: frame.receivedAt,
      rigidBodies: frame.rigidBodies.map((b) => ({ ...b, name: b.name ?? null })),
    });
  }

  poses(poses: PlanarPoses): void {
    this.record('/mocap/poses', {
      ...poses,
      pusher: { ...poses.pusher, rigidBody: poses.pusher.rigidBody ?? null },
      sliders: poses.sliders.map((s) => ({ ...s, rigidBody: s.rigidBody ?? null })),
    });
  }

  robotState(state: RobotState): void {
    this.record('/robot/state', state);
  }

  command(
    kind: 'twist' | 'stop',
    sequence: number | null,
    vx: number,
    vy: number,
    acceleration: number,
  ): void {
    this.record('/robot/command', { kind, sequence, vx, vy, acceleration });
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

  /** Records a console event of the run on its channel; events that are not the run's are ignored. */
  event(event: ConsoleEvent): void {
    switch (event.type) {
      case 'state':
        return this.record('/scene/state', { event });
      case 'planner-step':
        return this.record('/planner/step', { event });
      case 'supervisor':
        return this.record('/supervisor/event', { event });
      case 'log':
        return this.record('/console/log', { event });
      case 'run':
        return this.record('/run/status', { event });
      default:
        return undefined;
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
}
