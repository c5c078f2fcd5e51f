/**
 * The live ConnectionSource: reads the lab the run controller uses (its LabLink) a few times a
 * second and reports OptiTrack (frame rate, latency, drops), the UR5 (link, modes, program), the
 * gripper (pusher held) and the fine workers, plus the pre-flight checklist as the lab stands
 * now. Listeners hear only changes.
 */
import { setupResidual } from '../calibration/residual';
import type { Connection, RunStatus } from '#contract/console-api';
import type { LabView } from '#contract/lab-view';
import type { Scene } from '#contract/scene';
import type { MocapStats } from '../mocap/stats';
import { monotonicSeconds } from '#contract/time';
import { programPlaying } from '../robot/robot-state';
import type { LabLink } from './lab-link';
import { labView } from './link-views';
import { preflight } from '../safety/preflight';
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

/** Robot state older than this (s) counts as a silent link (the supervisor's own limit). */
const ROBOT_STALE = 0.1;
/** A pusher pose older than this (s) says the frames have stopped (the estimator's age of it). */
const FRAMES_STOPPED_S = 1;
/** Robot state older than this (s) says nothing of the robot's safety now (the status bar's SAFETY). */
const SAFETY_STALE = 1;

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
  const fresh = (link.poses()?.pusher.ageS ?? Infinity) < FRAMES_STOPPED_S;
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
    (s.decodeErrors > 0 ? `, ${s.decodeErrors} bad packet(s)` : '')
  );
}

function ur5(link: LabLink): Connection {
  const r = link.robot.latest;
  const label = connectionLabels.ur5;
  if (!link.robot.linkUp)
    return { id: 'ur5', label, state: 'error', latency: null, detail: 'RTDE link lost' };
  if (!r) return { id: 'ur5', label, state: 'connecting', latency: null, detail: 'waiting for robot state' };
  const age = monotonicSeconds() - r.receivedAt;
  return {
    id: 'ur5',
    label,
    state: age > ROBOT_STALE ? 'error' : 'connected',
    latency: null,
    detail:
      `robot ${r.robotMode}, safety ${r.safetyMode}, program ${programPlaying(r) ? 'playing' : r.program.state}` +
      (age > ROBOT_STALE ? `, no state for ${(age * 1000).toFixed(0)} ms` : ''),
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
    detail: link.scene.gripper
      ? `${g.held ? 'ready' : 'not ready'}: ${g.detail}`
      : g.held
        ? `pusher held (${g.detail})`
        : `pusher not held: ${g.detail}`,
  };
}

/**
 * The checklist of the lab as it stands, with the scene check on the console's scene (the one the
 * next run opens the lab on); without one, that check is red and says where to load one.
 */
function checklist(link: LabLink, scene: Scene | null): LabStatus['preflight'] {
  const report = preflight({
    mocap: link.poses(),
    robot: link.robot.latest,
    robotLinkUp: link.robot.linkUp,
    gripper: link.gripperStatus(),
    controller: link.controllerReadiness(),
    calibration: { residual: setupResidual(link.setup) },
    scene: scene ?? link.scene,
    maxCalibrationResidual: link.setup.safety.maxCalibrationResidual,
    setup: link.setup,
  });
  if (scene) return report;
  const checks = report.checks.map((c) =>
    c.id === 'scene' ? { ...c, ok: false, reason: 'no scene loaded: load one in the Scene view' } : c,
  );
  return { ok: checks.every((c) => c.ok), checks };
}

/** The robot's safety mode in the status bar's words; unknown without fresh robot state. */
function robotSafety(link: LabLink): RunStatus['safety'] {
  const r = link.robot.latest;
  if (!link.robot.linkUp || !r || monotonicSeconds() - r.receivedAt > SAFETY_STALE) return 'unknown';
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
