/**
 * One supervised run on a lab: motion capture -> state -> planner -> supervisor -> robot.
 * Pre-flight checks must all pass before the supervisor arms; nothing moves before that. The run
 * reports what happens as console events (run-report.ts) to its sink, the same events whoever
 * started it (the console shows them, the session log records them), and hands its lab streams to
 * the run's recorder (run-recorder.ts); the callbacks tell the caller too (the CLI prints them).
 *
 * A gripper scene runs the same way: the Robotiq opens fully instead of gripping the pusher, the
 * supervisor also checks the tool's yaw rate, its footprint and every finger motion and is the
 * only one to send them, and the fingers close by reflex once the target lies between them
 * (planning/gripper-plans.ts), as in the simulated runs. The run plans within the tighter of the
 * scene's limits and the lab's (the control program's speed and yaw-rate caps, the Robotiq's
 * fastest fingers), so a plan never asks for what the supervisor would refuse.
 */
import type { PlannerStep, RunSummary } from '#contract/planner-events';
import { controlLimits, type Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { monotonicSeconds } from '#contract/time';
import { defaultWorkerCount, FinePool } from '../parareal/fine-pool';
import type { SpawnWorker } from '../parareal/worker-transport';
import type { CoarseModelKind } from '#contract/planner-settings';
import { modelLabel } from '../parareal/predictor';
import { resolveModel, type ModelRequest } from '../parareal/model-choice';
import { closeOnTarget } from '../planning/gripper-plans';
import { runMpc } from '../planning/mpc-loop';
import type { Task } from '../planning/task-file';
import { createTaskRun, loopMode, theoreticalSpeedup, type TaskRunParts } from '../planning/task-run';
import { setupResidual } from '../calibration/residual';
import { RobotAdapter } from '../robot/adapter';
import { ROBOTIQ_OPENING_SPEED } from '../robot/gripper';
import { toolAtRest } from '../robot/robot-state';
import { agreementCheck } from '../safety/calibration-agreement';
import { preflight, type PreflightReport } from '../safety/preflight';
import { sceneGuardFor } from '../safety/scene-guard';
import { describeStop } from '../safety/stop-reasons';
import { DEFAULT_MAX_DRIFT, Supervisor, type Decision, type GripperSupervision } from '../safety/supervisor';
import { footprintReach, gripperFootprint, labWorkspace } from '../safety/workspace';
import type { TableEstimate } from '../mocap/state-estimator';
import type { LabLink } from '../lab-link/lab-link';
import { RobotPlant, RunStoppedError } from './robot-plant';
import { labView } from '../lab-link/link-views';
import type { RunRecorder } from './run-recorder';
import { RunReporter, type RunEventSink } from './run-report';

/** Longest wait for the workers to start before arming (s); a slow start then shows in planning. */
const WARM_UP_LIMIT = 30;

export interface SupervisedRunOptions {
  link: LabLink;
  task: Task;
  /** The prediction model, or `auto` (resolved for the worker count before the run starts). */
  model: ModelRequest;
  coarse?: CoarseModelKind;
  workers?: number;
  /** How fine workers start (Electron utility processes in the app; Node children by default). */
  spawn?: SpawnWorker;
  /**
   * Fine workers that outlive the run (the console's, kept warm across runs): the run registers
   * its scene with them and leaves them running. Without it the run starts workers of its own.
   */
  pool?: FinePool;
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
  /** Where the run reports its events (status, steps, live state, decisions, log lines). */
  sink?: RunEventSink;
  /** Monotonic time when the run started, s (contract/time.ts; run times count from here); default: now. */
  startedAt?: number;
  /** Rate of the measured-state events for the live view and the log (Hz); default 30. */
  liveRateHz?: number;
  /** The run's recorder: it gets the lab streams (the caller opens it and closes it after the run's last event). */
  recorder?: RunRecorder;
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
  const rec = o.recorder;
  const report = new RunReporter(
    o.sink ?? { status: () => undefined, emit: () => undefined },
    o.startedAt ?? monotonicSeconds(),
    () => o.signal?.aborted === true,
  );
  let adapter: RobotAdapter;
  try {
    adapter = new RobotAdapter({
      calibration: setup.robot.calibration,
      pusherOffset: setup.robot.pusherOffset,
    });
  } catch (err) {
    report.failed(err as Error);
    throw err;
  }
  const workers = o.pool?.size ?? o.workers ?? defaultWorkerCount();
  const p = o.task.planner;
  const { model, reason: modelReason } = resolveModel(o.model, {
    workers,
    sequences: p.optimizer.rollouts,
    horizon: p.horizon,
  });
  const planScene = withinLab(scene, link.robot.settings);
  const limits = controlLimits(planScene);
  const gripper = gripperSupervision(planScene, adapter, link, setup.safety.acceleration);
  const frame = {
    pusherInTable: (p: readonly number[]) => adapter.pusherPosition(p),
    tableToBase: (vx: number, vy: number) => adapter.toolVelocity(vx, vy),
  };
  const supervisor = new Supervisor({
    robot: rec ? rec.robot(link.robot) : link.robot,
    frame,
    workspace: labWorkspace(setup, scene.table),
    // The scene's obstacles, table top and objects are safety limits, whatever the task's costs.
    guard: sceneGuardFor(scene),
    maxSpeed: limits.maxSpeed,
    acceleration: setup.safety.acceleration,
    ...(gripper ? { gripper } : {}),
  });
  // The recorder first: a decision is in the log before anything reacts to it.
  const unwatch = rec?.watch(link, supervisor);
  // Which lab this run is on, as its devices say (the session list shows virtual or real from it).
  rec?.event({ type: 'lab', lab: labView(link, link.description) });
  supervisor.on('decision', (d) => report.decision(d));
  if (o.onDecision) supervisor.on('decision', o.onDecision);
  const offState = (s: Parameters<Supervisor['updateRobot']>[0]): void => supervisor.updateRobot(s);
  const offLink = (e: Error): void => supervisor.robotLinkLost(e.message);
  // In a gripper scene the Robotiq is the robot: its fault is the robot's, not a lost pusher.
  const offGripper = (r: { kind: string }): void =>
    scene.gripper ? supervisor.gripperFault(r.kind) : supervisor.pusherLost(r.kind);
  link.robot.on('state', offState);
  link.robot.on('linkLost', offLink);
  link.gripper.on('stop', offGripper);
  link.onMocap = (p) => {
    rec?.poses(p);
    supervisor.updateMocap(p);
  };
  const watchdog = setInterval(() => supervisor.tick(), 5);
  const layout = layoutForScene(scene);
  // One estimate of the table for the planner and the live view; a pusher (or gripper) without
  // markers is where the robot holds it.
  const observe = (): TableEstimate =>
    link.estimate(() => {
      const tcp = link.robot.latest?.tcpPose;
      return tcp ? { ...adapter.pusherPosition(tcp), yaw: adapter.toolYaw(tcp) } : undefined;
    });
  const live = setInterval(() => report.state(layout, observe()), 1000 / (o.liveRateHz ?? 30));
  const onAbort = (): void => {
    supervisor.abort();
    report.stopClock();
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const label = modelReason ? `${modelLabel(model)} (auto)` : modelLabel(model);

  /** Lets go of the lab; `error` is what ended the run if it threw. */
  const detach = (error?: Error): void => {
    // A no-op unless still active: the arm is left stopped whatever happened, for the reason that
    // ended the run (an error is not the operator's abort).
    if (error) supervisor.runFailed(error.message);
    else supervisor.abort();
    clearInterval(watchdog);
    clearInterval(live);
    o.signal?.removeEventListener('abort', onAbort);
    link.robot.off('state', offState);
    link.robot.off('linkLost', offLink);
    link.gripper.off('stop', offGripper);
    link.onMocap = undefined;
    unwatch?.();
  };

  // How the run ended is its last event: reported once everything else has stopped.
  let result: SupervisedRunResult;
  try {
    result = await run();
  } catch (err) {
    detach(err as Error);
    report.failed(err as Error);
    throw err;
  }
  detach();
  report.ended(result);
  return result;

  async function run(): Promise<SupervisedRunResult> {
    // Nothing moves yet, the gripper included: it grips (or opens) only once the checks of what
    // it needs not are green and, for a real run, the operator has armed (armAndRun).
    // The planner's workers start, and compile the scene, before anything is armed: that is the
    // heaviest thing a run does, for seconds on both cores of a small machine, and an armed
    // supervisor rightly stops on the stall it can cause (motion capture or robot state a little
    // over 100 ms old; 2 of 2 full test runs stopped a console dry run so at its start).
    const pool = o.pool ?? new FinePool({ workers, ...(o.spawn ? { spawn: o.spawn } : {}) });
    let taskRun: TaskRunParts | undefined;
    try {
      taskRun = await createTaskRun({
        task: o.task,
        scene: planScene,
        pool,
        model,
        seed: o.seed ?? 1,
        ...(o.coarse ? { coarse: o.coarse } : {}),
      });
      let warm = false;
      void pool.warm().then(() => (warm = true));
      await waitFor(() => warm || !!o.signal?.aborted, WARM_UP_LIMIT);
      return await armAndRun(taskRun);
    } finally {
      taskRun?.dispose();
      if (!o.pool) await pool.close();
    }
  }

  async function armAndRun(taskRun: TaskRunParts): Promise<SupervisedRunResult> {
    await link.restartStoppedProgram();
    // Give the streams a moment to deliver fresh state before judging them.
    await waitFor(() => link.robot.latest !== undefined && link.poses()?.ok === true, 2);
    const check = (): PreflightReport => {
      const poses = link.poses();
      const robot = link.robot.latest;
      const r = preflight({
        mocap: poses,
        robot,
        robotLinkUp: link.robot.linkUp,
        gripper: link.gripperStatus(),
        controller: link.controllerReadiness(),
        calibration: { residual: setupResidual(setup) },
        scene,
        maxCalibrationResidual: setup.safety.maxCalibrationResidual,
      });
      const checks = [
        ...r.checks,
        agreementCheck(poses?.pusher.pose ?? null, robot, frame, DEFAULT_MAX_DRIFT),
      ];
      return { ok: checks.every((c) => c.ok), checks };
    };
    // The gripper is judged after it moves: before that, every other check must be green.
    const isGripper = (c: PreflightReport['checks'][number]): boolean =>
      c.id === 'pusher-held' || c.id === 'gripper-open';
    const beforeGripping = (): PreflightReport => {
      const r = check();
      const checks = r.checks.filter((c) => !isGripper(c));
      return { ok: checks.every((c) => c.ok), checks };
    };
    let checks = beforeGripping();
    report.preflight(checks);
    o.onPreflight?.(checks);
    if (checks.ok && o.confirmArm && !o.signal?.aborted) await o.confirmArm(checks);
    if (checks.ok && !o.signal?.aborted) {
      // Green and (a real run) armed by the operator: the gripper may move now, then every check
      // runs again, the gripper's included, and must still be green.
      await link.prepareGripper();
      checks = check();
      report.preflight(checks);
      o.onPreflight?.(checks);
    }
    // An abort before arming: nothing has moved, and nothing may.
    const ended = (outcome: SupervisedRunResult['outcome'], reason: string): SupervisedRunResult => ({
      outcome,
      reason,
      summary: undefined,
      preflight: checks,
      model: label,
      supervisor,
      actions: 0,
    });
    if (o.signal?.aborted) return ended('aborted', describeStop({ code: 'operator-abort' }));
    if (!supervisor.arm(checks)) {
      const failed = checks.checks.filter((c) => !c.ok).map((c) => `${c.label}: ${c.reason}`);
      return ended('refused', `pre-flight checks failed: ${failed.join('; ')}`);
    }
    supervisor.startRun();

    const plant = new RobotPlant({
      supervisor,
      ...(o.betweenActions ? { betweenActions: () => o.betweenActions!() } : {}),
      estimate: observe,
      armAtRest: () => toolAtRest(link.robot.latest),
    });
    let steps = 0;
    try {
      const summary = await runMpc({
        plant,
        planner: taskRun.planner,
        geometry: taskRun.geometry,
        controlDuration: o.task.planner.controlDuration,
        maxActions: o.task.planner.maxActions,
        timeLimit: o.task.planner.timeLimit,
        workers,
        theoreticalSpeedup: theoreticalSpeedup(model, p.horizon),
        ...loopMode(o.task),
        ...(taskRun.geometry.graspGoal
          ? { reflex: closeOnTarget(taskRun.geometry, limits, o.task.planner.controlDuration) }
          : {}),
        onStep: (step) => {
          steps = step.step;
          report.step(step);
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
        preflight: checks,
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
        preflight: checks,
        model: label,
        supervisor,
        actions: steps,
      };
    }
  }
}

/**
 * The scene with its limits narrowed to what the lab does: the control program's speed and yaw-rate
 * caps (which scale a faster command down, so a plan above them would not run as planned) and the
 * Robotiq's fastest fingers.
 */
function withinLab(scene: Scene, program: { maxSpeed: number; maxYawRate: number }): Scene {
  const l = scene.limits;
  return {
    ...scene,
    limits: {
      maxPusherSpeed: Math.min(l.maxPusherSpeed, program.maxSpeed),
      ...(l.maxYawRate !== undefined ? { maxYawRate: Math.min(l.maxYawRate, program.maxYawRate) } : {}),
      ...(l.maxOpeningSpeed !== undefined
        ? { maxOpeningSpeed: Math.min(l.maxOpeningSpeed, ROBOTIQ_OPENING_SPEED.max) }
        : {}),
    },
  };
}

/**
 * What the supervisor needs of a gripper scene's robot (undefined for a pusher). Turning commands
 * accelerate so that the gripper's farthest point accelerates as fast as the setup lets the tool.
 */
function gripperSupervision(
  scene: Scene,
  adapter: RobotAdapter,
  link: LabLink,
  acceleration: number,
): GripperSupervision | undefined {
  const fingers = link.fingersFor();
  if (!scene.gripper || !fingers) return undefined;
  const { maxYawRate, maxOpeningSpeed } = controlLimits(scene);
  const footprint = gripperFootprint(scene.gripper);
  return {
    maxYawRate: maxYawRate!,
    maxOpeningSpeed: maxOpeningSpeed!,
    yawAcceleration: acceleration / footprintReach(footprint),
    maxOpening: scene.gripper.maxOpening,
    footprint,
    yawInTable: (p) => adapter.toolYaw(p),
    toolTwist: (vx, vy, yawRate, p) => adapter.toolTwist(vx, vy, yawRate, p),
    fingers,
  };
}

/** Polls `predicate` for up to `timeout` s. */
async function waitFor(predicate: () => boolean, timeout: number): Promise<void> {
  const end = monotonicSeconds() + timeout;
  while (!predicate() && monotonicSeconds() < end) await new Promise((r) => setTimeout(r, 10));
}
