/**
 * The live ConnectionSource: reads the lab the run controller uses (its LabLink) a few times a
 * second and reports OptiTrack (frame rate, latency, drops), the UR5 (link, modes, program), the
 * gripper (pusher held) and the fine workers, plus the pre-flight checklist as the lab stands
 * now. Listeners hear only changes.
 */
import type { Connection, RunStatus } from '#contract/console-api';
import type { LabView } from '#contract/lab-view';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { MocapStats } from '../mocap/stats';
import { programPlaying } from '../robot/robot-state';
import type { LabLink } from './lab-link';
import { labView } from './link-views';
import { labChecks } from './lab-checks';
import { connectionLabels, type ConnectionSource, type LabStatus } from './status-source';
import type { LabConnection } from './lab-connection';

/** What the connection source needs of the run controller. */
export interface LabInUse {
  currentConnection(): LabConnection;
  runningWorkers(): number;
  /** Whether the fine workers are up (they stay warm between runs). */
  workersStarted(): boolean;
  readonly workers: number;
  onChange(listener: () => void): () => void;
}

/** A pusher pose older than this (s) says the frames have stopped (the estimator's age of it). */
const FRAMES_STOPPED_AFTER = 1;

export class LabStatusSource implements ConnectionSource {
  private readonly listeners = new Set<(status: LabStatus) => void>();
  private last = '';
  private readonly timer: NodeJS.Timeout;
  private readonly offController: () => void;
  private offSession: () => void = () => undefined;
  private watched: LabConnection | null = null;
  /** The console's scene, which the checklist judges; undefined: not told (the link's own scene). */
  private scene: Scene | null | undefined = undefined;

  constructor(
    private readonly lab: LabInUse,
    /** How often the lab is read, s. */
    period = 0.5,
  ) {
    this.timer = setInterval(() => this.refresh(), period * 1000);
    this.timer.unref();
    this.offController = lab.onChange(() => this.refresh());
    this.refresh();
  }

  current(): LabStatus {
    const session = this.lab.currentConnection();
    const link = session.current();
    return {
      connections: link
        ? [optitrack(link), ur5(link), gripper(link), this.workers()]
        : this.unconnected(session),
      preflight: link ? checklist(link, this.scene === undefined ? link.scene : this.scene) : null,
      lab: link ? labView(link, session.description) : unconnectedLab(session),
      safety: link ? robotSafety(link) : 'unknown',
    };
  }

  useScene(scene: Scene | null): void {
    this.scene = scene;
    this.refresh();
  }

  subscribe(listener: (status: LabStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    clearInterval(this.timer);
    this.offController();
    this.offSession();
    this.listeners.clear();
  }

  private refresh(): void {
    const session = this.lab.currentConnection();
    if (session !== this.watched) {
      this.offSession();
      this.watched = session;
      this.offSession = session.onChange(() => this.refresh());
    }
    const status = this.current();
    const key = JSON.stringify(status);
    if (key === this.last) return;
    this.last = key;
    for (const l of this.listeners) l(status);
  }

  private workers(): Connection {
    const running = this.lab.runningWorkers();
    return {
      id: 'workers',
      label: connectionLabels.workers,
      state: running > 0 || this.lab.workersStarted() ? 'connected' : 'disconnected',
      latency: null,
      detail:
        running > 0
          ? `${running} fine-model worker process(es) running`
          : this.lab.workersStarted()
            ? `${this.lab.workers} fine-model worker process(es) warm for the next run`
            : `${this.lab.workers} fine-model worker process(es) start with the first run and stay warm`,
    };
  }

  private unconnected(session: LabConnection): Connection[] {
    const detail = `not connected to the ${session.description}`;
    return [
      ...(['optitrack', 'ur5', 'gripper'] as const).map((id) => ({
        id,
        label: connectionLabels[id],
        state: 'disconnected' as const,
        latency: null,
        detail,
      })),
      this.workers(),
    ];
  }
}

function optitrack(link: LabLink): Connection {
  const s = link.natnet.getStats();
  const latency = s.totalLatency ?? s.systemLatency ?? null;
  const fresh = (link.poses()?.pusher.age ?? Infinity) < FRAMES_STOPPED_AFTER;
  const state = s.frames === 0 ? 'connecting' : fresh ? 'connected' : 'error';
  return {
    id: 'optitrack',
    label: connectionLabels.optitrack,
    state,
    latency: latency !== null && latency >= 0 ? latency : null,
    detail: optitrackDetail(s, fresh),
  };
}

/**
 * The stream's health in words: rate, frames missing from the numbering, old frames dropped
 * unread (replayed or reordered: the estimator drops the same ones), Motive restarts, bad packets.
 */
export function optitrackDetail(s: MocapStats, fresh: boolean): string {
  if (s.frames === 0) return 'waiting for the first frame';
  return (
    `${s.frameRate.toFixed(1)} frames/s, ${s.droppedFrames} dropped${fresh ? '' : ', frames stopped'}` +
    (s.olderFrames > 0 ? `, ${s.olderFrames} out of order` : '') +
    (s.restarts > 0 ? `, ${s.restarts} restart(s)` : '') +
    (s.spoofSigns > 0 ? `, ${s.spoofSigns} sign(s) of spoofing` : '') +
    (s.decodeErrors > 0 ? `, ${s.decodeErrors} bad packet(s)` : '')
  );
}

/**
 * The UR5 as its link reports it. Whether the robot has gone silent is judged where its states
 * arrive, in the safety thread: its RTDE link counts as lost after 250 ms without a state
 * (robot/ur5-connection.ts) and the mirror here says so (linkUp). The age of the last state as
 * read here is not judged: it grows with how long this thread was busy before reading (closing a
 * run's log, starting workers), not with the robot's silence, and once made the UR5 flash
 * "error" between runs while its states arrived on time.
 */
function ur5(link: LabLink): Connection {
  const r = link.robot.latest;
  const label = connectionLabels.ur5;
  if (!link.robot.linkUp)
    return { id: 'ur5', label, state: 'error', latency: null, detail: 'RTDE link lost' };
  if (!r) return { id: 'ur5', label, state: 'connecting', latency: null, detail: 'waiting for robot state' };
  return {
    id: 'ur5',
    label,
    state: 'connected',
    latency: null,
    detail: `robot ${r.robotMode}, safety ${r.safetyMode}, program ${programPlaying(r) ? 'playing' : r.program.state}`,
  };
}

function gripper(link: LabLink): Connection {
  const g = link.gripperStatus();
  return {
    id: 'gripper',
    label: connectionLabels.gripper,
    state: 'connected',
    latency: null,
    // In a gripper scene the gripper is the robot: ready means activated and open, not holding.
    detail: endEffectorOf(link.scene).fingers
      ? `${g.held ? 'ready' : 'not ready'}: ${g.detail}`
      : g.held
        ? `pusher held (${g.detail})`
        : `pusher not held: ${g.detail}`,
  };
}

/**
 * The checklist of the lab as it stands (the run's own, lab-checks.ts), with the scene check on
 * the console's scene (the one the next run opens the lab on); without one, that check is red and
 * says where to load one.
 */
function checklist(link: LabLink, scene: Scene | null): LabStatus['preflight'] {
  const report = labChecks(link, scene ?? link.scene);
  if (scene) return report;
  const checks = report.checks.map((c) =>
    c.id === 'scene' ? { ...c, ok: false, reason: 'no scene loaded: load one in the Scene view' } : c,
  );
  return { ok: checks.every((c) => c.ok), checks };
}

/**
 * The robot's safety mode in the status bar's words, from the same state the checklist's safety
 * check reads (so the bar and the Setup view agree); unknown without a robot link or state.
 */
function robotSafety(link: LabLink): RunStatus['safety'] {
  const r = link.robot.latest;
  if (!link.robot.linkUp || !r) return 'unknown';
  switch (r.safetyMode) {
    case 'NORMAL':
    case 'REDUCED':
      return 'safe';
    case 'VIOLATION':
    case 'FAULT':
      return 'fault';
    default:
      // Protective, safeguard and emergency stops, and the recovery from one.
      return 'stopped';
  }
}

function unconnectedLab(session: LabConnection): LabView {
  return {
    kind: 'unknown',
    description: session.description,
    connected: false,
    robot: null,
    mocap: null,
    scene: null,
    setup: null,
  };
}
