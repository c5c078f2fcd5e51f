/**
 * The one recorder of a run. Every run goes through it, whichever way it was started (a console
 * dry run, a console real run, `parapush run`, an experiment's run recorded with `--sessions`
 * through recorded-run.ts): one session log per run (src-main/session), fed
 * by the same two sources, so the same channels fill however the run began:
 *
 * - the run's events (run-report.ts): status, planner steps, measured state, supervisor decisions
 *   in words, the event log, recorded by the run's owner (run-owner.ts): the console's every
 *   event it publishes during the run, a run without a console the events of the run itself.
 * - the lab's streams, attached by the supervised run (`watch`, `command`, `poses`): motion capture
 *   frames and poses, robot state, every command as it is sent, every supervisor decision, and
 *   the lab setup's frames.
 *
 * close() comes after the run's last event (its owner calls it once the run has reported how it
 * ended); the outcome recorded is the one the run's last status said. The recorder sits beside
 * the run; it never changes what the run does.
 */
import type { ConsoleEvent } from '#contract/console-api';
import { type RunOutcome } from '#contract/run-end';
import type { CoarseModelKind, PlannerSettings } from '#contract/planner-settings';
import { outcomeOf, type RunMode } from '#contract/run-lifecycle';
import type { Scene } from '#contract/scene';
import type { ModelRequest } from '../parareal/model-choice';
import type { PlanarPoses } from '../mocap/scene-binding';
import { actionCap, type Task } from '../planning/task-file';
import type { RobotState } from '../robot/robot-state';
import type { Decision } from '../safety/supervisor';
import { SessionRecorder, type MessageTap, type SessionRecorderOptions } from '../session/recorder';
import type { SessionSummary } from '../session/session-summary';
import type { PayloadOf } from '../session/channels';
import type { LabLink } from '../lab-link/lab-link';
import type { SentCommand } from '../lab-link/safety-thread/supervisor-mirror';

/** How often a run's log records the motion-capture stream's counters (s). */
const STATS_PERIOD = 1;

/** Where a run's supervisor decisions come from (the safety thread's, through its mirror). */
export interface DecisionSource {
  on(event: 'decision', fn: (d: Decision) => void): unknown;
  off(event: 'decision', fn: (d: Decision) => void): unknown;
}

export interface RunRecorderOptions {
  /** The sessions folder. */
  dir: string;
  origin: SessionRecorderOptions['origin'];
  mode: RunMode;
  /** Ends the log's file name (default: the mode). */
  label?: string;
  scene: Scene;
  settings: PlannerSettings;
  onError?: (err: Error) => void;
  /** Also told every message of the log as it is written (a live Foxglove view). */
  tap?: MessageTap;
}

export class RunRecorder {
  private outcome: { outcome: RunOutcome; detail: string | null } | null = null;

  private constructor(
    private readonly rec: SessionRecorder,
    private readonly mode: RunMode,
  ) {}

  /** Opens the log of a run: its scene and settings, and the operator's start. */
  static async start(o: RunRecorderOptions): Promise<RunRecorder> {
    const rec = await SessionRecorder.create({
      dir: o.dir,
      label: o.label ?? o.mode,
      origin: o.origin,
      ...(o.onError ? { onError: o.onError } : {}),
      ...(o.tap ? { tap: o.tap } : {}),
    });
    rec.settings(o.mode, o.scene, o.settings);
    rec.operator('run.start', `${o.mode} run started (${o.origin})`);
    return new RunRecorder(rec, o.mode);
  }

  get file(): string {
    return this.rec.file;
  }

  /** An event of the run; a status that ends the run is its outcome (the last one counts). */
  event(event: ConsoleEvent): void {
    this.rec.event(event);
    if (event.type !== 'run') return;
    const outcome = outcomeOf(event.status.phase);
    if (outcome) this.outcome = { outcome, detail: event.status.reason };
  }

  /** What the operator did ("run.start", "run.abort", ...). */
  operator(action: string, detail: string): void {
    this.rec.operator(action, detail);
  }

  /**
   * Attaches to the lab streams of a supervised run: the setup's frames now, then every motion
   * capture frame, robot state and supervisor decision, and the motion-capture stream's counters
   * (dropped, out-of-order, repeated frames, restarts) now, every STATS_PERIOD and at the end.
   * Returns the detach function.
   */
  watch(link: Pick<LabLink, 'setup' | 'robot' | 'natnet'>, supervisor: DecisionSource): () => void {
    this.rec.setup(link.setup);
    const stats = (): void => this.rec.mocapStats(link.natnet.getStats());
    stats();
    const statsTimer = setInterval(stats, STATS_PERIOD * 1000);
    const onState = (s: RobotState): void => this.rec.robotState(s);
    const onDecision = (d: Decision): void => this.rec.decision(d);
    link.robot.on('state', onState);
    supervisor.on('decision', onDecision);
    const offFrame = link.natnet.on('frame', (f, snapshot) => this.rec.mocapFrame(snapshot, f.timestamp));
    return () => {
      clearInterval(statsTimer);
      stats();
      link.robot.off('state', onState);
      supervisor.off('decision', onDecision);
      offFrame();
    };
  }

  /** Poses derived from a motion-capture frame (the supervised run's view of the table). */
  poses(poses: PlanarPoses): void {
    this.rec.poses(poses);
  }

  /** The prediction model the run plans with (auto resolved for its workers), and why. */
  model(choice: PayloadOf<'/run/model'>): void {
    this.rec.model(choice);
  }

  /** The planner's prediction error of one executed control (planning/prediction-error.ts). */
  predictionError(e: PayloadOf<'/planner/prediction-error'>): void {
    this.rec.predictionError(e);
  }

  /** A command as the supervisor sent it to the robot (in the safety thread, reported here). */
  command(c: SentCommand): void {
    this.rec.command(c.kind, c.seq, c.vx, c.vy, c.acceleration, c.yawRate);
  }

  /** Ends the log after the run's last event: its outcome, then the indexed file. */
  close(): Promise<SessionSummary> {
    if (this.outcome) {
      this.rec.outcome(this.outcome.outcome, this.outcome.detail);
      this.outcome = null;
    }
    return this.rec.close();
  }
}

/** The planner settings a task and model amount to, in the console's terms (for the log's settings channel). */
export function plannerSettingsOf(
  task: Task,
  scene: Scene,
  model: ModelRequest,
  coarse: CoarseModelKind,
): PlannerSettings {
  const p = task.planner;
  const parareal: PlannerSettings['parareal'] =
    model.kind === 'parareal' && model.tolerance
      ? {
          mode: 'adaptive',
          translationTolerance: model.tolerance.translation,
          rotationTolerance: model.tolerance.rotation,
          maxIterations: Math.max(1, model.iterations),
        }
      : {
          mode: 'iterations',
          iterations: model.kind === 'parareal' ? Math.max(1, Math.min(model.iterations, p.horizon)) : 1,
        };
  return {
    predictionModel: model.kind,
    parareal,
    slices: p.horizon,
    coarseModel: coarse,
    rollouts: p.optimizer.rollouts,
    horizon: p.horizon,
    controlDuration: p.controlDuration,
    // The console's settings hold one variance: a per-input list's first, the translational one.
    explorationVariance:
      typeof p.optimizer.explorationVariance === 'number'
        ? p.optimizer.explorationVariance
        : p.optimizer.explorationVariance[0]!,
    maxPusherSpeed: scene.limits.maxPusherSpeed,
    planner: p.kind,
    maxExecutedActions: actionCap(p),
    prediction: { ...p.prediction },
    loopMode: p.loopMode,
  };
}
