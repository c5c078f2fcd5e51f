/** `parapush run`: a whole supervised run through the real protocols (lab or virtual lab). */
import type { Command } from 'commander';
import { integratorSchema } from '#contract/scene';
import type { RunEnd } from '#contract/run-end';
import { parseModelRequest } from '../../parareal/model-choice';
import type { Task } from '../../planning/task-file';
import { offeredPlanners } from '../../planning/planners';
import { taskForRun, TaskOverrideError, type TaskOverrides } from '../../planning/task-for-run';
import { plannerSettingsOf, RunRecorder } from '../../run/run-recorder';
import {
  supervisedRun,
  type ModelChoice,
  type PreflightStage,
  type SupervisedRunResult,
} from '../../run/supervised-run';
import type { PreflightReport } from '../../safety/preflight';
import { judgedAfterArm } from '#contract/arm-readiness';
import { parseFineSpec } from '../controls';
import { connectLab, labSetupFor, labTaskOf, withRunOwner, type LabOptions } from '../lab-run';
import { UsageError } from '../errors';
import { foxgloveOriginOption, liveViewOptions, startLive } from '../live-view-options';
import { liveViewNotice } from '../../session/foxglove-live';
import { defaultSessionsDir } from '../../session/sessions-dir';

interface RunOptions extends LabOptions {
  scene?: string;
  task?: string;
  model: string;
  coarse: string;
  planner?: string;
  async?: boolean;
  prediction?: string;
  workers?: string;
  seed: string;
  json?: boolean;
  foxglove?: string | true;
  foxgloveOrigin?: string[];
}

/**
 * The task `parapush run` plans with: the task file's, with `--planner`, `--async` and
 * `--prediction INTEGRATOR:MS` (RK4:1, Euler:2: the fine model the planner predicts with; the world
 * keeps the scene's) laid over it (planning/task-for-run.ts). The prediction is checked against the
 * task file's planner schema, so a bad value is reported with the field it breaks.
 */
export function taskOfOptions(task: Task, opts: Pick<RunOptions, 'planner' | 'async' | 'prediction'>): Task {
  const overrides: TaskOverrides = {};
  if (opts.planner) {
    const offered = offeredPlanners().map((p) => p.kind);
    if (!offered.includes(opts.planner))
      throw new UsageError(`--planner: expected ${offered.join(' or ')}, got "${opts.planner}"`);
    overrides.planner = opts.planner;
  }
  if (opts.async) overrides.loopMode = 'asynchronous';
  if (opts.prediction !== undefined) overrides.prediction = parseFineSpec('--prediction', opts.prediction);
  try {
    return taskForRun(task, overrides);
  } catch (e) {
    if (e instanceof TaskOverrideError) throw new UsageError(`--${e.message}`);
    throw e;
  }
}

/** A control for people: (vx, vy) in mm/s, and a gripper's yaw rate (deg/s) and opening speed (mm/s). */
function controlText(u: readonly number[]): string {
  const mm = (v: number): string => (v * 1000).toFixed(0);
  const xy = `(${mm(u[0]!)}, ${mm(u[1]!)}) mm/s`;
  if (u.length !== 4) return xy;
  return `${xy}, yaw ${((u[2]! * 180) / Math.PI).toFixed(0)} deg/s, opening ${mm(u[3]!)} mm/s`;
}

/** What to do after a protective stop: the unlock needs the operator, so it is never automatic. */
function recoveryHint(opts: RunOptions): string {
  const ports = (
    [
      ['--rtde-port', opts.rtdePort],
      ['--script-port', opts.scriptPort],
      ['--dashboard-port', opts.dashboardPort],
    ] as const
  )
    .filter(([, v]) => v !== undefined)
    .map(([flag, v]) => ` ${flag} ${v}`)
    .join('');
  return [
    'the robot is in a protective stop: inspect and clear its cause, then unlock it and restart',
    `the control program with: parapush robot recover --robot ${opts.robot}${ports} --confirm`,
  ].join('\n');
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description(
      'run a supervised pushing task on the robot: mocap -> state -> planner -> supervisor -> robot',
    )
    .requiredOption(
      '--robot <host>',
      'UR controller address (RTDE, dashboard, script ports and the Robotiq URCap)',
    )
    .requiredOption('--mocap <host>', 'Motive (NatNet) server address')
    .option(
      '--mocap-local <address>',
      'local interface for NatNet (default: the one on the route to --mocap; 127.0.0.1 for a loopback server)',
    )
    .option('--scene <file>', 'scene file (its task: resources/tasks/<scene name>.json)')
    .option('--task <file>', 'task file (costs and planner settings; names its scene)')
    .option(
      '--model <model>',
      'coarse | fine | parareal[:K] | parareal:adaptive | auto (fine or Parareal, from the worker count)',
      'parareal:2',
    )
    .option('--coarse <model>', 'coarse model of Parareal: analytical | learned', 'analytical')
    .option(
      '--planner <kind>',
      `${offeredPlanners()
        .map((p) => p.kind)
        .join(' | ')} (default: the task file's)`,
    )
    .option('--async', 'plan the next step while the arm executes this one (asynchronous MPC)')
    .option(
      '--prediction <INTEGRATOR:MS>',
      `the planner's fine model, e.g. RK4:1 or Euler:2 (${integratorSchema.options.join(' | ')}; default: the task file's)`,
    )
    .option('--setup <file>', 'lab setup (calibrations); default: <setup dir>/<robot host>.json')
    .option('--workers <W>', 'fine-model worker processes (default: one per core)')
    .option('--seed <n>', 'planner seed', '1')
    .option('--rtde-port <port>')
    .option('--script-port <port>', 'URScript port the control program is sent to (30002)')
    .option('--dashboard-port <port>')
    .option('--gripper-port <port>')
    .option('--natnet-port <port>', 'NatNet command port')
    .option('--json', 'print one JSON object with the outcome at the end')
    .option(
      '--foxglove [port]',
      'serve the run live to Foxglove/Lichtblick on ws://127.0.0.1:PORT/?token=... (default 8765)',
    )
    .addOption(foxgloveOriginOption())
    .action(async (opts: RunOptions) => {
      const loaded = labTaskOf(opts);
      const task = taskOfOptions(loaded.task, opts);
      let model;
      try {
        model = parseModelRequest(opts.model);
      } catch (e) {
        throw new UsageError(`--model: ${(e as Error).message}`);
      }
      if (opts.coarse !== 'analytical' && opts.coarse !== 'learned') {
        throw new UsageError(`--coarse: expected analytical or learned, got "${opts.coarse}"`);
      }
      const coarse = opts.coarse;
      const liveView = liveViewOptions(opts);
      const setup = labSetupFor(opts, loaded.scene);
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      const live = liveView.port === null ? null : await startLive(liveView.port, liveView.origins);
      if (live) log(liveViewNotice(live.url));
      const link = await connectLab(opts, loaded.scene, setup, log);
      // The run's one recorder, as a console run has: the run's events go straight into it.
      const recorder = await RunRecorder.start({
        dir: defaultSessionsDir(),
        origin: 'headless',
        mode: 'real',
        scene: loaded.scene,
        settings: plannerSettingsOf(task, loaded.scene, model, opts.coarse),
        onError: (e) => log(`session log: ${e.message} (the run goes on)`),
        ...(live ? { tap: live.tap } : {}),
      });
      log(`session log: ${recorder.file}`);
      let choice: ModelChoice | null = null;
      try {
        // The run's owner, as the console has one: its status, clock, abort, log and fine workers.
        const result = await withRunOwner({ workers: opts.workers, recorder, log }, (owner) =>
          supervisedRun({
            link,
            task,
            model,
            coarse,
            seed: Number(opts.seed),
            owner,
            onModel: (c) => {
              choice = c;
              log(
                `model: ${c.model} on ${c.workers} worker${c.workers === 1 ? '' : 's'}${c.reason ? `, chosen by ${c.reason}` : ` (asked for: ${c.requested})`}`,
              );
            },
            onPreflight: (r, stage) => checklistLines(r, stage).forEach(log),
            onDecision: (d) =>
              log(
                `supervisor: ${d.kind}${'message' in d ? `: ${d.message}` : ''}${'failed' in d ? `: ${d.failed.join('; ')}` : ''}`,
              ),
            onStep: (s) =>
              log(
                `step ${s.step + 1}: u = ${controlText(s.plan[0]!)}, planning ${s.timings.planning.toFixed(2)} s, cost ${s.costs.at(-1)?.toFixed(3) ?? '-'}`,
              ),
          }),
        );
        log(`run ${result.outcome}: ${result.reason}`);
        if (result.supervisor.stopReason?.code === 'protective-stop') log(recoveryHint(opts));
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify({ outcome: result.outcome, ...endFields(result.end), reason: result.reason, model: result.model, prediction: choice, actions: result.actions, taskTime: result.summary?.taskTime ?? null, preflight: result.preflight.checks, log: recorder.file })}\n`,
          );
        }
        process.exitCode = exitStatus(result);
      } finally {
        await link.close();
        await recorder.close();
        await live?.close();
      }
    });
}

/**
 * One of the run's two checklists as printed: a heading that says which (before the gripper moves,
 * or after), then a line per check. Before gripping, the gripper's own check is judged only after
 * the grip (contract/arm-readiness.ts): it reads LATER, not FAIL.
 */
export function checklistLines(report: PreflightReport, stage: PreflightStage): string[] {
  const heading =
    stage === 'before-gripping'
      ? "pre-flight checks before gripping (the gripper's check follows the grip):"
      : 'pre-flight checks after gripping (every check must be green to arm):';
  return [
    heading,
    ...report.checks.map((c) => {
      const mark = c.ok ? ' ok ' : stage === 'before-gripping' && judgedAfterArm(c.id) ? 'LATER' : 'FAIL';
      return `  [${mark}] ${c.label}: ${c.reason}`;
    }),
  ];
}

/** The command's exit status: 0 when the run finished (goal reached), 3 when it was never armed, else 1. */
export function exitStatus(result: Pick<SupervisedRunResult, 'outcome' | 'end'>): number {
  if (result.outcome === 'finished') return 0;
  return result.end.cause === 'not-armed' ? 3 : 1;
}

/** Why the run ended, for `--json`: the cause, and the task's result when the task ended by itself. */
function endFields(end: RunEnd): { cause: RunEnd['cause']; taskResult: string | null } {
  return { cause: end.cause, taskResult: end.cause === 'task' ? end.result : null };
}
