/**
 * `parapush physics probe`: an identification run on a lab (real or virtual), through the same
 * protocols, checks and supervisor as `parapush run`, logged like any run: a few pushes chosen to
 * show how the lab's objects slide and turn (physics-probe/), for `parapush physics fit`.
 */
import { endEffectorOf } from '#contract/end-effector/registry';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { wallSeconds } from '#contract/time';
import { loadSceneFile } from '../../common/config-files';
import { readStoredJson } from '../../common/stored-json';
import { loadTaskFile } from '../../planning/task-file';
import { shippedTaskFile } from '../../planning/task-for-run';
import { LabLink } from '../../lab-link/lab-link';
import { plannerSettingsOf, RunRecorder } from '../../run/run-recorder';
import { RunOwner } from '../../run/run-owner';
import { ABORTED } from '../../run/run-report';
import { defaultSetupDir, loadSetup, sceneTableProblem } from '../../calibration/setup-file';
import { defaultSessionsDir } from '../../session/sessions-dir';
import { tasksDir } from '../../common/paths';
import { PROBE_NEEDS_PUSHER, probeRun } from '../../physics-probe/probe-run';
import { probePushSchema } from '../../physics-probe/probe-pushes';
import { requireFile, UsageError } from '../errors';
import { checklistLines, exitStatus, optionalPort } from './run';
import { z } from 'zod';

interface ProbeOptions {
  robot: string;
  mocap: string;
  mocapLocal?: string;
  scene?: string;
  task?: string;
  pushes?: string;
  setup?: string;
  workers?: string;
  rtdePort?: string;
  scriptPort?: string;
  dashboardPort?: string;
  gripperPort?: string;
  natnetPort?: string;
  json?: boolean;
}

const isLoopback = (host: string): boolean => host === 'localhost' || host.startsWith('127.');

export function registerProbeCommand(physics: Command): void {
  physics
    .command('probe')
    .description(
      "an identification run: a few supervised pushes at different contact offsets, directions and speeds, logged for 'physics fit'",
    )
    .requiredOption('--robot <host>', 'UR controller address')
    .requiredOption('--mocap <host>', 'Motive (NatNet) server address')
    .option('--mocap-local <address>', 'local interface for NatNet (default: as parapush run)')
    .option('--scene <file>', 'scene file (its task: resources/tasks/<scene name>.json)')
    .option('--task <file>', 'task file (its control duration and prediction settings; names its scene)')
    .option('--pushes <file>', 'JSON list of pushes {offset, distance, speed, turn} (default: eight)')
    .option('--setup <file>', 'lab setup (calibrations); default: <setup dir>/<robot host>.json')
    .option('--workers <W>', 'fine-model worker processes (default: one per core)')
    .option('--rtde-port <port>')
    .option('--script-port <port>')
    .option('--dashboard-port <port>')
    .option('--gripper-port <port>')
    .option('--natnet-port <port>', 'NatNet command port')
    .option('--json', 'print one JSON object with the outcome at the end')
    .action(async (opts: ProbeOptions) => {
      if (!opts.scene && !opts.task) throw new UsageError('give --scene FILE or --task FILE');
      let loaded;
      if (opts.task) loaded = loadTaskFile(requireFile(opts.task, '--task'));
      else {
        const scene = loadSceneFile(opts.scene!);
        const taskFile = shippedTaskFile(tasksDir, scene.name);
        if (!taskFile)
          throw new UsageError(`no task file for scene "${scene.name}" in resources/tasks: give --task FILE`);
        loaded = { ...loadTaskFile(taskFile), scene };
      }
      if (endEffectorOf(loaded.scene).discRadius === undefined) throw new UsageError(PROBE_NEEDS_PUSHER);
      const pushes = opts.pushes
        ? readStoredJson(requireFile(opts.pushes, '--pushes'), z.array(probePushSchema).min(1), {
            what: 'probe pushes',
          })
        : undefined;
      const setupFile = opts.setup ?? path.join(defaultSetupDir(), `${opts.robot}.json`);
      if (!existsSync(setupFile))
        throw new UsageError(
          isLoopback(opts.robot)
            ? `no lab setup at ${setupFile}: start the virtual lab first (parapush lab), or give --setup FILE`
            : `no lab setup at ${setupFile}: calibrate this lab first, or give --setup FILE`,
        );
      const setup = loadSetup(setupFile);
      const misfit = sceneTableProblem(setup, loaded.scene.table);
      if (misfit) throw new UsageError(`the scene does not fit the lab setup ${setupFile}: ${misfit}`);
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      const ports = {
        rtde: optionalPort('--rtde-port', opts.rtdePort),
        script: optionalPort('--script-port', opts.scriptPort),
        dashboard: optionalPort('--dashboard-port', opts.dashboardPort),
        gripper: optionalPort('--gripper-port', opts.gripperPort),
        natnetCommand: optionalPort('--natnet-port', opts.natnetPort),
      };
      log(`connecting to robot ${opts.robot} and motion capture ${opts.mocap} ...`);
      const link = await LabLink.connect(
        {
          robotHost: opts.robot,
          mocapHost: opts.mocap,
          mocapLocal: opts.mocapLocal ?? (isLoopback(opts.mocap) ? '127.0.0.1' : '0.0.0.0'),
          ports: Object.fromEntries(Object.entries(ports).filter(([, v]) => v !== undefined)),
        },
        loaded.scene,
        setup,
        log,
      );
      const recorder = await RunRecorder.start({
        dir: defaultSessionsDir(),
        origin: 'headless',
        mode: 'real',
        label: 'probe',
        scene: loaded.scene,
        settings: plannerSettingsOf(loaded.task, loaded.scene, { kind: 'fine' }, 'analytical'),
        onError: (e) => log(`session log: ${e.message} (the run goes on)`),
      });
      log(`session log: ${recorder.file}`);
      const owner = new RunOwner(opts.workers ? { workers: Number(opts.workers) } : {});
      owner.begin('real', recorder);
      const onSignal = (signal: NodeJS.Signals): void => {
        owner.operator('run.abort', signal);
        owner.emit({
          type: 'log',
          at: wallSeconds(),
          level: 'warn',
          source: 'operator',
          message: `Abort requested by operator (${signal})`,
        });
        log('abort requested (signal): stopping the arm');
        owner.abort(ABORTED);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const r = await probeRun({
          link,
          task: loaded.task,
          owner,
          ...(pushes ? { pushes } : {}),
          onPreflight: (report, stage) => checklistLines(report, stage).forEach(log),
          onDecision: (d) => log(`supervisor: ${d.kind}${'message' in d ? `: ${d.message}` : ''}`),
        });
        log(
          `probe ${r.run.outcome}: ${r.run.reason}; ${r.done.length} of ${r.pushes.length} pushes done` +
            (r.skipped.length > 0
              ? `, ${r.skipped.length} left out (no clear way where the object stood)`
              : ''),
        );
        if (opts.json)
          process.stdout.write(
            `${JSON.stringify({ outcome: r.run.outcome, reason: r.run.reason, actions: r.run.actions, pushes: r.pushes.length, done: r.done, skipped: r.skipped, log: recorder.file })}\n`,
          );
        process.exitCode = exitStatus(r.run);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        owner.release();
        await owner.close();
        await link.close();
        await recorder.close();
      }
    });
}
