/**
 * What the commands that run on a lab (`parapush run`, `parapush physics probe`) share: their task
 * and scene, the lab setup and the lab link from their options, and the run's owner as the console has one, begun on
 * the run's log, with Ctrl+C (SIGINT) or SIGTERM as the operator's abort (the stop goes out from
 * the safety thread; the command then ends as the run does).
 */
import { wallSeconds } from '#contract/time';
import type { Scene } from '#contract/scene';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defaultSetupDir, loadSetup, sceneTableProblem, type Setup } from '../calibration/setup-file';
import { LabLink, type LabAddress } from '../lab-link/lab-link';
import { isLoopback, mocapLocalFor } from '../lab-link/real-lab-connection';
import { RunOwner } from '../run/run-owner';
import type { RunRecorder } from '../run/run-recorder';
import { ABORTED } from '../run/run-report';
import { loadSceneFile } from '../common/config-files';
import { tasksDir } from '../common/paths';
import { loadTaskFile, type LoadedTask } from '../planning/task-file';
import { shippedTaskFile } from '../planning/task-for-run';
import { requireFile, UsageError } from './errors';

export function optionalPort(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new UsageError(`${name}: expected a port number, got "${v}"`);
  return n;
}

/** The address, port and setup options of a command that runs on a lab. */
export interface LabOptions {
  robot: string;
  /** The lab setup file; default: <setup dir>/<robot host>.json. */
  setup?: string;
  mocap: string;
  mocapLocal?: string;
  rtdePort?: string;
  scriptPort?: string;
  dashboardPort?: string;
  gripperPort?: string;
  natnetPort?: string;
}

/** The task file `--task` names (with its scene), or the shipped task of the scene `--scene` names. */
export function labTaskOf(opts: { scene?: string; task?: string }): LoadedTask {
  if (opts.task) return loadTaskFile(requireFile(opts.task, '--task'));
  if (!opts.scene) throw new UsageError('give --scene FILE or --task FILE');
  const scene = loadSceneFile(opts.scene);
  const taskFile = shippedTaskFile(tasksDir, scene.name);
  if (!taskFile)
    throw new UsageError(`no task file for scene "${scene.name}" in resources/tasks: give --task FILE`);
  return { ...loadTaskFile(taskFile), scene };
}

/** The lab setup the options name, which must fit the scene's table; a usage error says what to do when not. */
export function labSetupFor(opts: LabOptions, scene: Scene): Setup {
  const setupFile = opts.setup ?? path.join(defaultSetupDir(), `${opts.robot}.json`);
  if (!existsSync(setupFile)) {
    // On loopback the lab is the virtual one, whose setup `parapush lab` writes when it starts.
    throw new UsageError(
      isLoopback(opts.robot)
        ? `no lab setup at ${setupFile}: start the virtual lab first (parapush lab, in another terminal; it writes this setup), or give --setup FILE`
        : `no lab setup at ${setupFile}: calibrate this lab first (the console's Setup view, calibration wizard), or give --setup FILE`,
    );
  }
  const setup = loadSetup(setupFile);
  const misfit = sceneTableProblem(setup, scene.table);
  if (misfit) throw new UsageError(`the scene does not fit the lab setup ${setupFile}: ${misfit}`);
  return setup;
}

/** The lab's address and ports as the options give them (NatNet on loopback for a loopback server, else any interface). */
export function labAddressOf(opts: LabOptions): LabAddress {
  const ports = {
    rtde: optionalPort('--rtde-port', opts.rtdePort),
    script: optionalPort('--script-port', opts.scriptPort),
    dashboard: optionalPort('--dashboard-port', opts.dashboardPort),
    gripper: optionalPort('--gripper-port', opts.gripperPort),
    natnetCommand: optionalPort('--natnet-port', opts.natnetPort),
  };
  return {
    robotHost: opts.robot,
    mocapHost: opts.mocap,
    mocapLocal: opts.mocapLocal ?? mocapLocalFor(opts.mocap),
    ports: Object.fromEntries(Object.entries(ports).filter(([, v]) => v !== undefined)),
  };
}

/** Connects to the lab the options name. */
export function connectLab(
  opts: LabOptions,
  scene: Scene,
  setup: Setup,
  log: (line: string) => void,
): Promise<LabLink> {
  log(`connecting to robot ${opts.robot} and motion capture ${opts.mocap} ...`);
  return LabLink.connect(labAddressOf(opts), scene, setup, log);
}

/**
 * Runs `run` on a run owner of its own (`workers` fine workers, default one per core), begun on
 * `recorder`; a signal meanwhile is the operator's abort, recorded as the console records one. The
 * owner is released and its workers stopped when `run` ends.
 */
export async function withRunOwner<T>(
  o: { workers: string | undefined; recorder: RunRecorder; log(line: string): void },
  run: (owner: RunOwner) => Promise<T>,
): Promise<T> {
  const owner = new RunOwner(o.workers ? { workers: Number(o.workers) } : {});
  owner.begin('real', o.recorder);
  const onSignal = (signal: NodeJS.Signals): void => {
    // The request, then the stop it causes (the order of the run's event log).
    owner.operator('run.abort', signal);
    owner.emit({
      type: 'log',
      at: wallSeconds(),
      level: 'warn',
      source: 'operator',
      message: `Abort requested by operator (${signal})`,
    });
    o.log('abort requested (signal): stopping the arm');
    owner.abort(ABORTED);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await run(owner);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    owner.release();
    await owner.close();
  }
}
