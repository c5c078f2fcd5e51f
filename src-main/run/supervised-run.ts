/**
 * One supervised run on a lab: motion capture -> state -> planner -> supervisor -> robot.
 * Pre-flight checks must all pass before the supervisor arms; nothing moves before that. Every
 * supervisor decision and planner step is reported to the caller (the CLI prints them, the console
 * shows them, the session log records them).
 */
import os from 'node:os';
import type { PlannerStep, RunSummary } from '../contract/planner-events';
import { layoutForScene } from '../contract/state';
import { FinePool } from '../parareal/fine-pool';
import type { SpawnWorker } from '../parareal/worker-transport';
import type { CoarseKind } from '../parareal/predictor';
import { modelLabel } from '../parareal/predictor';
import { resolveModel, type ModelRequest } from '../parareal/model-choice';
import { runMpc } from '../planning/mpc-loop';
import type { Task } from '../planning/task-file';
import { createTaskRun, loopMode, theoreticalSpeedup } from '../planning/task-run';
import { RobotAdapter } from '../robot/adapter';
import { preflight, type PreflightReport } from '../safety/preflight';
import { describeStop } from '../safety/stop-reasons';
import { Supervisor, type Decision } from '../safety/supervisor';
import { labWorkspace } from '../safety/workspace';
import type { SessionRecorder } from '../session/recorder';
import type { LabLink } from './lab-link';
import { plannerSettingsOf, recordedRobot } from './run-recording';
import { RobotPlant, RunStoppedError } from './robot-plant';

export interface SupervisedRunOptions {
  link: LabLink;
  task: Task;
  /** The prediction model, or `auto` (resolved for the worker count before the run starts). */
  model: ModelRequest;
  coarse?: CoarseKind;
  workers?: number;
  /** How fine workers start (Electron utility processes in the app; Node children by default). */
  spawn?: SpawnWorker;
  seed?: number;
  /**
   * The operator's explicit arm step (real runs): called once the pre-flight checks are green and
   * resolves when the operator arms. The checks run again afterwards and must still be green.
   */
  confirmArm?(report: PreflightReport): Promise<void>;
  /** Awaited after each action while the arm holds still: the operator's pause. */
  betweenActions?(): Promise<void>;
  onPreflight?(report: PreflightReport): void;
  onDecision?(d: Decision): void;
  onStep?(step: PlannerStep): void;
  /** Aborts the run (operator): the supervisor stops the arm at once. */
  signal?: AbortSignal;
  /** Session log to record the run into (the caller creates and closes it). */
  recorder?: SessionRecorder;
}

export interface SupervisedRunResult {
  outcome: RunSummary['outcome'] | 'refused' | 'stopped';
  /** Why it ended, in the operator's words. */
  reason: string;
  summary: RunSummary | undefined;
  preflight: PreflightReport;
  model: string;
  /** The run's supervisor, stopped: recovery after a protective stop goes through it. */
  supervisor: Supervisor;
  /** Actions executed before the run ended. */
  actions: number;
}

export async function supervisedRun(o: SupervisedRunOptions): Promise<SupervisedRunResult> {
  const { link } = o;
  const { scene, setup } = link;
  const adapter = new RobotAdapter({
    calibration: setup.robot.calibration,
    pusherOffset: setup.robot.pusherOffset,
  });
  const rec = o.recorder;
  const workers = o.workers ?? Math.max(1, os.availableParallelism() - 1);
  const p = o.task.planner;
  const { model, reason: modelReason } = resolveModel(o.model, {
    workers,
    sequences: p.optimizer.rollouts,
    horizon: p.horizon,
  });
  rec?.settings('real', scene, plannerSettingsOf(o.task, scene, model, o.coarse ?? 'analytical'));
  const supervisor = new Supervisor({
    robot: rec ? recordedRobot(link.robot, rec) : link.robot,
    frame: {
      pusherInTable: (p) => adapter.pusherPosition(p),
      tableToBase: (vx, vy) => adapter.toolVelocity(vx, vy),
    },
    workspace: labWorkspace(setup, scene.table),
    maxSpeed: scene.limits.maxPusherSpeed,
    acceleration: setup.safety.acceleration,
  });
  if (o.onDecision) supervisor.on('decision', o.onDecision);
  if (rec) supervisor.on('decision', (d) => rec.decision(d));
  const offState = (s: Parameters<Supervisor['updateRobot']>[0]): void => {
    rec?.robotState(s);
    supervisor.updateRobot(s);
  };
  const offFrame = rec ? link.natnet.on('frame', (_f, snapshot) => rec.mocapFrame(snapshot)) : undefined;
  const offLink = (e: Error): void => supervisor.robotLinkLost(e.message);
  const offGripper = (r: { kind: string }): void => supervisor.pusherLost(r.kind);
  link.robot.on('state', offState);
  link.robot.on('linkLost', offLink);
  link.gripper.on('stop', offGripper);
  link.onMocap = (p) => {
    rec?.poses(p);
    supervisor.updateMocap(p);
  };
  const watchdog = setInterval(() => supervisor.tick(), 5);
  const onAbort = (): void => supervisor.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const label = modelReason ? `${modelLabel(model)} (auto)` : modelLabel(model);

  try {
    await link.gripPusher();
    // Give the streams a moment to deliver fresh state before judging them.
    await waitFor(() => link.robot.latest !== undefined && link.poses()?.ok === true, 2000);
    const check = (): PreflightReport =>
      preflight({
        mocap: link.poses(),
        robot: link.robot.latest,
        gripper: link.gripperStatus(),
        calibration: { residual: setup.mocap.residual.rms },
        scene,
        maxCalibrationResidual: setup.safety.maxCalibrationResidual,
      });
    let report = check();
    o.onPreflight?.(report);
    if (report.ok && o.confirmArm && !o.signal?.aborted) {
      await o.confirmArm(report);
      report = check();
      o.onPreflight?.(report);
    }
    // An abort before arming: nothing has moved, and nothing may.
    const ended = (outcome: SupervisedRunResult['outcome'], reason: string): SupervisedRunResult => ({
      outcome,
      reason,
      summary: undefined,
      preflight: report,
      model: label,
      supervisor,
      actions: 0,
    });
    if (o.signal?.aborted) return ended('aborted', describeStop({ code: 'operator-abort' }));
    if (!supervisor.arm(report)) {
      const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.label}: ${c.reason}`);
      return ended('refused', `pre-flight checks failed: ${failed.join('; ')}`);
    }
    supervisor.startRun();

    const pool = new FinePool({ workers, ...(o.spawn ? { spawn: o.spawn } : {}) });
    const run = await createTaskRun({
      task: o.task,
      scene,
      pool,
      model,
      seed: o.seed ?? 1,
      ...(o.coarse ? { coarse: o.coarse } : {}),
    });
    const plant = new RobotPlant({
      supervisor,
      ...(o.betweenActions ? { betweenActions: () => o.betweenActions!() } : {}),
      layout: layoutForScene(scene),
      poses: () => link.poses(),
      pusherFromRobot: () =>
        link.robot.latest ? adapter.pusherPosition(link.robot.latest.tcpPose) : undefined,
    });
    let steps = 0;
    try {
      const summary = await runMpc({
        plant,
        planner: run.planner,
        geometry: run.geometry,
        controlDuration: o.task.planner.controlDuration,
        maxActions: o.task.planner.maxActions,
        timeLimit: o.task.planner.timeLimit,
        workers,
        theoreticalSpeedup: theoreticalSpeedup(model, p.horizon),
        ...loopMode(o.task),
        onStep: (step) => {
          steps = step.step;
          rec?.event({ type: 'planner-step', step });
          o.onStep?.(step);
        },
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const reason = summary.outcome === 'success' ? 'goal reached' : (summary.detail ?? summary.outcome);
      supervisor.finish(`${summary.outcome}: ${reason}`);
      return {
        outcome: summary.outcome,
        reason,
        summary,
        preflight: report,
        model: label,
        supervisor,
        actions: summary.actions,
      };
    } catch (err) {
      if (!(err instanceof RunStoppedError)) throw err;
      const r = supervisor.stopReason;
      return {
        outcome: r?.code === 'operator-abort' ? 'aborted' : 'stopped',
        reason: r ? describeStop(r) : err.message,
        summary: undefined,
        preflight: report,
        model: label,
        supervisor,
        actions: steps,
      };
    } finally {
      run.dispose();
      await pool.close();
    }
  } finally {
    supervisor.abort(); // no-op unless still active: the arm is left stopped whatever happened
    clearInterval(watchdog);
    o.signal?.removeEventListener('abort', onAbort);
    link.robot.off('state', offState);
    link.robot.off('linkLost', offLink);
    link.gripper.off('stop', offGripper);
    link.onMocap = undefined;
    offFrame?.();
  }
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}
