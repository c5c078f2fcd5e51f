/**
 * One supervised run on a lab: motion capture -> state -> planner -> supervisor -> robot.
 * Pre-flight checks must all pass before the supervisor arms; nothing moves before that. The
 * supervisor, the motion-capture stream it judges and the robot command stream run in the lab's
 * safety thread (safety-thread/): the planner here proposes by message, and nothing it, the
 * recorder or the UI does can delay a stop there. The run goes through named phases: prepare,
 * warm, pre-flight, arm, execute; attach/detach connect it to the lab and its record. Planning
 * moves nothing, so the first step is planned during pre-flight, from the table observed once the
 * workers are warm, and the arm is armed with that plan made: it does not stand armed waiting for
 * a plan. The loop confirms that plan against the table before sending it and plans afresh when
 * the table has moved since (gripping, or a hand on the object while the operator confirmed). The
 * run belongs to its owner (run-owner.ts), which holds what outlives it: the status it reports to (as
 * console events, run-report.ts, the same whoever started it), the clock, the operator's abort and
 * pause, the log its lab streams go into (run-recorder.ts), and the warm fine workers. The
 * callbacks tell the caller too (the CLI prints them).
 *
 * A gripper scene runs the same way: the Robotiq opens fully instead of gripping the pusher, the
 * supervisor also checks the tool's yaw rate, its footprint and every finger motion and is the
 * only one to send them, and the fingers close by reflex once the target lies between them
 * (planning/gripper-plans.ts), as in the simulated runs. The run plans within the tighter of the
 * scene's limits and the lab's (the control program's speed and yaw-rate caps, the Robotiq's
 * fastest fingers), so a plan never asks for what the supervisor would refuse.
 */
import type { PlannerStep, RunSummary } from '#contract/planner-events';
import { runOutcomeOf, type RunEnd, type RunOutcome } from '#contract/run-end';
import { controlLimits, endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { monotonicSeconds } from '../common/clock';
import type { CoarseModelKind } from '#contract/planner-settings';
import { predictionModelSpec } from '../parareal/predictor';
import type { ModelRequest } from '../parareal/model-choice';
import { closeOnTarget } from '../planning/gripper-plans';
import { planFirstStep, runMpc, type FirstPlan } from '../planning/mpc-loop';
import { actionCap, type Task } from '../planning/task-file';
import {
  createTaskRun,
  loopMode,
  planningModel,
  theoreticalSpeedup,
  type TaskRunParts,
} from '../planning/task-run';
import { RobotAdapter } from '../robot/adapter';
import { ROBOTIQ_OPENING_SPEED } from '../robot/gripper';
import { toolAtRest } from '../robot/robot-state';
import type { PreflightReport } from '../safety/preflight';
import { labChecks, streamsCaughtUp } from '../lab-link/lab-checks';
import { armReadiness } from '#contract/arm-readiness';
import { describeStop } from '../safety/stop-reasons';
import type { Decision } from '../safety/supervisor';
import type { PredictionModel } from '../parareal/predictor';
import type { FinePool } from '../parareal/fine-pool';
import type { Planner } from '../planning/planner';
import type { TaskGeometry } from '../planning/task-geometry';
import type { TableEstimate } from '../mocap/state-estimator';
import type { LabLink } from '../lab-link/lab-link';
import { RobotPlant, RunStoppedError } from './robot-plant';
import { labView } from '../lab-link/link-views';
import type { RunOwner } from './run-owner';
import { RunReporter, type PreflightStage } from './run-report';

export type { PreflightStage } from './run-report';
import type { SentCommand, SupervisorMirror } from '../lab-link/safety-thread/supervisor-mirror';

/** What the operator's Arm is judged by: the checks the run needs before Arm, as they stand now. */
export interface ArmGate {
  checks(): Promise<PreflightReport>;
}

/** Longest wait for the workers to start before arming (s); a slow start then shows in planning. */
const WARM_UP_LIMIT = 30;

export interface SupervisedRunOptions {
  link: LabLink;
  task: Task;
  /** The prediction model, or `auto` (resolved for the worker count before the run starts). */
  model: ModelRequest;
  coarse?: CoarseModelKind;
  /**
   * The run's owner (run-owner.ts), the run already begun on it: its status, clock, abort and
   * pause, its log, and its warm fine workers (the run registers its scene with them and leaves
   * them running).
   */
  owner: RunOwner;
  seed?: number;
  /**
   * The operator's explicit arm step (real runs): called once the run is ready to be armed but for
   * the operator, and resolves when the operator arms, or aborts. The gate gives the checks the
   * run needs before Arm as they stand now: an Arm is to be taken only when they are green
   * (contract/arm-readiness.ts). Every check runs again after gripping and must be green.
   */
  confirmArm?(gate: ArmGate): Promise<void>;
  /** Each checklist the run judges: before gripping (gripper's check after Arm), then after gripping. */
  onPreflight?(report: PreflightReport, stage: PreflightStage): void;
  onDecision?(d: Decision): void;
  onStep?(step: PlannerStep): void;
  /** The prediction model the run plans with, once resolved (auto's choice for its workers). */
  onModel?(choice: ModelChoice): void;
  /** Rate of the measured-state events for the live view and the log (Hz); default 30. */
  liveRateHz?: number;
  /**
   * The run's planner in place of the task's: an identification run's scripted probing pushes
   * (physics-probe/). It plans through the same loop, so every check and the supervisor apply.
   */
  planner?(parts: { geometry: TaskGeometry; pool: FinePool; scene: Scene }): Planner;
  /**
   * s the arm holds still after each control before the next is planned (default 0): an
   * identification run's rest, over which the log's poses of the table at rest are averaged.
   */
  restAfterAction?: number;
}

/** The model a run plans with: asked for (the request's kind), used, on how many workers, and auto's reason. */
export interface ModelChoice {
  requested: ModelRequest['kind'];
  /** The spec planned with (predictionModelSpec): fine, coarse, parareal:K. */
  model: string;
  workers: number;
  /** Why auto chose it; null when the model was asked for by name. */
  reason: string | null;
}

export interface SupervisedRunResult {
  /** Why the run ended (contract/run-end.ts): its task's result, or what ended it before that. */
  end: RunEnd;
  /** How the run ended, as its lifecycle ends: runOutcomeOf(end). */
  outcome: RunOutcome;
  /** Why it ended, in the operator's words. */
  reason: string;
  summary: RunSummary | undefined;
  preflight: PreflightReport;
  model: string;
  /** The run's supervisor (in the safety thread), stopped: recovery after a protective stop goes through it. */
  supervisor: SupervisorMirror;
  /** Actions executed before the run ended. */
  actions: number;
}

/**
 * What the phases of one run share: the lab, the run's supervisor in the safety thread, its
 * reporter and recorder, the plan's scene and how the table is observed.
 */
interface RunContext {
  o: SupervisedRunOptions;
  link: LabLink;
  supervisor: SupervisorMirror;
  report: RunReporter;
  adapter: RobotAdapter;
  /** The scene within the lab's limits: the plan's, and the supervisor's. */
  planScene: Scene;
  workers: number;
  model: PredictionModel;
  /** The model as the run reports it. */
  label: string;
  /** What was asked for, what is used and why (the log's /run/model). */
  choice: ModelChoice;
  observe(): TableEstimate;
}

export async function supervisedRun(o: SupervisedRunOptions): Promise<SupervisedRunResult> {
  const report = new RunReporter(o.owner, { realTime: true });
  // Which lab this run is on, as its devices say (the session list shows virtual or real from it):
  // first, so that a run that fails to prepare still names its lab.
  o.owner.runRecorder?.event({ type: 'lab', lab: labView(o.link, o.link.description) });
  let ctx: RunContext;
  try {
    ctx = prepare(o, report);
  } catch (err) {
    report.failed(err as Error);
    throw err;
  }
  const detach = attach(ctx);
  // How the run ended is its last event: reported once everything else has stopped.
  let result: SupervisedRunResult;
  try {
    result = await warmAndRun(ctx);
  } catch (err) {
    await detach(err as Error);
    report.failed(err as Error);
    throw err;
  }
  await detach();
  report.ended(result);
  return result;
}

/**
 * Phase 1, prepare: the robot's calibration, the prediction model for the workers, the scene
 * within the lab's limits and a supervisor for it in the safety thread. Throws on a setup the
 * run cannot use; nothing is connected to the run yet.
 */
function prepare(o: SupervisedRunOptions, report: RunReporter): RunContext {
  const { link } = o;
  const adapter = new RobotAdapter({
    calibration: link.setup.robot.calibration,
    pusherOffset: link.setup.robot.pusherOffset,
  });
  const workers = o.owner.workers;
  const { model, reason } = planningModel(o.task, link.scene, o.model, workers);
  const planScene = withinLab(link.scene, link.robot.settings);
  const supervisor = link.safety.supervise(planScene);
  return {
    o,
    link,
    supervisor,
    report,
    adapter,
    planScene,
    workers,
    model,
    label: reason ? `${predictionModelSpec(model)} (auto)` : predictionModelSpec(model),
    choice: { requested: o.model.kind, model: predictionModelSpec(model), workers, reason },
    // One estimate of the table for the planner and the live view; a pusher (or gripper)
    // without markers is where the robot holds it.
    observe: () =>
      link.estimate(() => {
        const tcp = link.robot.latest?.tcpPose;
        return tcp ? { ...adapter.pusherPosition(tcp), yaw: adapter.toolYaw(tcp) } : undefined;
      }),
  };
}

/**
 * Connects the run to the lab and its record: the recorder (first, so a decision is in the log
 * before anything reacts to it), the reporter, the gripper's faults to the supervisor, the live
 * view and the operator's abort. Returns the detach function: it leaves the arm stopped for the
 * reason that ended the run, and resolves once the safety thread says so.
 */
function attach(ctx: RunContext): (error?: Error) => Promise<void> {
  const { o, link, supervisor, report } = ctx;
  const rec = o.owner.runRecorder;
  const signal = o.owner.signal;
  const unwatch = rec?.watch(link, supervisor);
  const onCommand = (c: SentCommand): void => rec?.command(c);
  supervisor.on('command', onCommand);
  // Which model it plans with: auto's choice is the machine's, so the log keeps it (session list,
  // playback, log info).
  rec?.model(ctx.choice);
  o.onModel?.(ctx.choice);
  supervisor.on('decision', (d) => report.decision(d));
  if (o.onDecision) supervisor.on('decision', o.onDecision);
  // A tool with fingers has the Robotiq for them: its fault is the robot's, not a lost pusher.
  const fingered = endEffectorOf(link.scene).slots.opening !== undefined;
  const onGripper = (r: { kind: string }): void =>
    fingered ? supervisor.gripperFault(r.kind) : supervisor.pusherLost(r.kind);
  link.gripper.on('stop', onGripper);
  link.onMocap = (p) => rec?.poses(p);
  const layout = layoutForScene(link.scene);
  const live = setInterval(() => report.state(layout, ctx.observe()), 1000 / (o.liveRateHz ?? 30));
  // The owner stops the run's clock and reports the abort; this stops the arm, on its call stack.
  const onAbort = (): void => supervisor.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  return async (error) => {
    // A no-op in the thread unless still active: the arm is left stopped whatever happened, for
    // the reason that ended the run (an error is not the operator's abort).
    if (error) supervisor.runFailed(error.message);
    else supervisor.abort();
    clearInterval(live);
    signal.removeEventListener('abort', onAbort);
    link.gripper.off('stop', onGripper);
    link.onMocap = undefined;
    // The stop decision reaches the log and the caller before the run reports its end.
    await supervisor.settled();
    supervisor.off('command', onCommand);
    unwatch?.();
  };
}

/**
 * Phase 2, warm: the owner's fine workers compile the run's scene before anything is armed (the
 * first run of an owner also waits for them to start: seconds on both cores of a small machine;
 * later runs find them started). The phases after it run with the workers warm: the pre-flight
 * begins the first step's plan on them.
 */
async function warmAndRun(ctx: RunContext): Promise<SupervisedRunResult> {
  const { o } = ctx;
  const pool = o.owner.finePool();
  let taskRun: TaskRunParts | undefined;
  // The first step's plan, once the pre-flight has begun it.
  const ahead: { first?: FirstPlan } = {};
  try {
    taskRun = await createTaskRun({
      task: o.task,
      scene: ctx.planScene,
      pool,
      model: ctx.model,
      seed: o.seed ?? 1,
      ...(o.coarse ? { coarse: o.coarse } : {}),
    });
    if (o.planner)
      taskRun = {
        ...taskRun,
        planner: o.planner({
          geometry: taskRun.geometry,
          pool,
          scene: { ...ctx.planScene, fine: o.task.planner.prediction },
        }),
      };
    let warm = false;
    void pool.warm().then(() => (warm = true));
    await waitFor(() => warm || o.owner.aborted, WARM_UP_LIMIT);
    const parts = taskRun;
    const checks = await preflightPhase(ctx, () => (ahead.first = planAhead(ctx, parts)));
    const refused = await armPhase(ctx, checks);
    if (refused) return refused;
    return await execute(ctx, taskRun, checks, ahead.first);
  } finally {
    // A first plan the run did not get to use leaves the workers (a no-op once the loop used it).
    ahead.first?.cancel.abort();
    taskRun?.dispose();
  }
}

/**
 * The first step's plan, begun from the table as observed now, while the pre-flight runs; none
 * when the run was aborted or the table is not seen (the checks then refuse the run).
 */
function planAhead(ctx: RunContext, taskRun: TaskRunParts): FirstPlan | undefined {
  if (ctx.o.owner.aborted || ctx.link.poses()?.ok !== true) return undefined;
  const x = ctx.observe().state;
  if (x === null) return undefined;
  return planFirstStep({
    planner: taskRun.planner,
    geometry: taskRun.geometry,
    x,
    signal: ctx.o.owner.signal,
  });
}

/**
 * Phase 3, pre-flight: every check the run needs before Arm must be green (contract/arm-readiness.ts:
 * all but the gripper's) and, for a real run, the operator must arm; only then the gripper moves
 * (it grips, or opens). A real run waits for the operator whatever its checks read when it
 * begins; the operator's Arm is taken only while those checks are green (`ArmGate`). The first
 * step's plan is begun (`planAhead`) as soon as the table is seen as the plan will find it: at
 * once with a pusher, after the fingers open with a gripper (their opening is part of the state).
 * The run waits for that plan after gripping, and every check runs again, the gripper's included,
 * just before arming. Nothing moves before that, the gripper included. The operator's abort ends
 * the wait at once (the plan is given up with it); a plan that failed fails the run unarmed.
 */
async function preflightPhase(
  ctx: RunContext,
  planAhead: () => FirstPlan | undefined,
): Promise<PreflightReport> {
  const { o, link, report } = ctx;
  const { scene } = link;
  // A program a previous stop ended is started again here, and the operator is told: never silently.
  const restart = await link.restartStoppedProgram();
  if (restart.restarted)
    report.log(
      'warn',
      'robot',
      `Control program was not running (${restart.was}), as a previous stop left it: restarted before the pre-flight checks`,
    );
  // Give the streams a moment to deliver fresh state before judging them.
  await waitFor(() => link.robot.latest !== undefined && link.poses()?.ok === true, 2);
  // A tool held by the Robotiq plans ahead while it grips; one with fingers plans from their measured opening.
  let first = endEffectorOf(scene).slots.opening === undefined ? planAhead() : undefined;
  // Before gripping: the whole list, judged by the rule Arm follows (the gripper's check after it).
  const beforeGripping = (): PreflightReport => {
    const { checks } = labChecks(link, scene);
    return { ok: armReadiness({ checks }).ready, checks };
  };
  let checks = beforeGripping();
  report.preflight(checks, 'before-gripping');
  o.onPreflight?.(checks, 'before-gripping');
  if (o.confirmArm && !o.owner.aborted) {
    const gate: ArmGate = {
      checks: async () => {
        await streamsCaughtUp();
        const now = beforeGripping();
        report.preflight(now, 'before-gripping');
        return now;
      },
    };
    await o.confirmArm(gate);
    // The checks the operator armed on (the gate took the Arm only while they were green).
    await streamsCaughtUp();
    checks = beforeGripping();
  }
  if (checks.ok && !o.owner.aborted) {
    await link.prepareGripper();
    first ??= planAhead();
    const failed = first ? await first.settled : undefined;
    if (o.owner.aborted) return checks;
    if (failed) throw failed;
    await streamsCaughtUp();
    checks = labChecks(link, scene);
    report.preflight(checks, 'after-gripping');
    o.onPreflight?.(checks, 'after-gripping');
  }
  return checks;
}

/**
 * Phase 4, arm: the thread's supervisor arms on green checks and the run starts. Returns how the
 * run ended when it did not start (aborted before arming: nothing has moved, and nothing may;
 * refused on red checks), else undefined.
 */
async function armPhase(ctx: RunContext, checks: PreflightReport): Promise<SupervisedRunResult | undefined> {
  const { o, supervisor } = ctx;
  const ended = (end: RunEnd, reason: string): SupervisedRunResult => ({
    end,
    outcome: runOutcomeOf(end),
    reason,
    summary: undefined,
    preflight: checks,
    model: ctx.label,
    supervisor,
    actions: 0,
  });
  if (o.owner.aborted) return ended({ cause: 'operator-abort' }, describeStop({ code: 'operator-abort' }));
  if (!(await supervisor.arm(checks))) {
    const failed = checks.checks
      .filter((c) => !c.ok)
      .map((c) => `${c.label}: ${c.reason}${c.fix ? ` (fix: ${c.fix})` : ''}`);
    if (failed.length > 0)
      return ended({ cause: 'not-armed' }, `pre-flight checks failed: ${failed.join('; ')}`);
    // Green checks, and still not armed: the safety thread ended or refused.
    const why = supervisor.stopReason ? describeStop(supervisor.stopReason) : supervisor.refusal;
    return ended({ cause: 'not-armed' }, `not armed: ${why ?? 'the safety thread did not arm'}`);
  }
  if (o.owner.aborted) return ended({ cause: 'operator-abort' }, describeStop({ code: 'operator-abort' }));
  supervisor.startRun();
  return undefined;
}

/**
 * Phase 5, execute: the MPC loop plans and proposes; the thread's supervisor checks and sends.
 * Ends with the loop's outcome, or with the supervisor's stop reason when it stopped the run.
 */
async function execute(
  ctx: RunContext,
  taskRun: TaskRunParts,
  checks: PreflightReport,
  first: FirstPlan | undefined,
): Promise<SupervisedRunResult> {
  const { o, link, supervisor, planScene } = ctx;
  const p = o.task.planner;
  const plant = new RobotPlant({
    supervisor,
    betweenActions: async () => {
      const rest = o.restAfterAction ?? 0;
      if (rest > 0) await new Promise((r) => setTimeout(r, rest * 1000));
      await o.owner.betweenActions();
    },
    estimate: ctx.observe,
    armAtRest: () => toolAtRest(link.robot.latest),
  });
  let steps = 0;
  const result = (
    r: Omit<SupervisedRunResult, 'outcome' | 'preflight' | 'model' | 'supervisor'>,
  ): SupervisedRunResult => ({
    ...r,
    outcome: runOutcomeOf(r.end),
    preflight: checks,
    model: ctx.label,
    supervisor,
  });
  try {
    const summary = await runMpc({
      plant,
      planner: taskRun.planner,
      geometry: taskRun.geometry,
      controlDuration: p.controlDuration,
      maxActions: actionCap(p),
      timeLimit: p.timeLimit,
      workers: ctx.workers,
      theoreticalSpeedup: theoreticalSpeedup(ctx.model, p.horizon),
      ...loopMode(o.task),
      ...(taskRun.geometry.graspGoal
        ? { reflex: closeOnTarget(taskRun.geometry, controlLimits(planScene), p.controlDuration) }
        : {}),
      onStep: (step) => {
        steps = step.step;
        ctx.report.step(step);
        o.onStep?.(step);
      },
      onPredictionError: (e) => o.owner.runRecorder?.predictionError(e),
      signal: o.owner.signal,
      ...(first ? { firstPlan: first } : {}),
    });
    // A scripted planner's end is a success with its own words (mpc-loop.ts).
    const reason = summary.detail ?? (summary.outcome === 'success' ? 'goal reached' : summary.outcome);
    supervisor.finish(`${summary.outcome}: ${reason}`);
    await supervisor.settled();
    return result({
      end: { cause: 'task', result: summary.outcome },
      reason,
      summary,
      actions: summary.actions,
    });
  } catch (err) {
    if (!(err instanceof RunStoppedError)) throw err;
    // The thread's stop decision may still be on its way: the reason is its.
    await supervisor.settled();
    const r = supervisor.stopReason;
    return result({
      end: { cause: r?.code === 'operator-abort' ? 'operator-abort' : 'safety-stop' },
      reason: r ? describeStop(r) : err.message,
      summary: undefined,
      actions: steps,
    });
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

/** Polls `predicate` for up to `timeout` s. */
async function waitFor(predicate: () => boolean, timeout: number): Promise<void> {
  const end = monotonicSeconds() + timeout;
  while (!predicate() && monotonicSeconds() < end) await new Promise((r) => setTimeout(r, 10));
}
