/**
 * `parapush lab check`: the commissioning checks of a lab (real or virtual), without moving
 * anything: it connects as a run does and prints each pre-flight check with, when red, its fix.
 * Exit 1 when any fails (or the lab cannot be connected, said why), 0 when all pass.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadSceneFile } from '../../common/config-files';
import { defaultSetupDir, loadSetup } from '../../calibration/setup-file';
import { LabLink, type LabAddress } from '../../lab-link/lab-link';
import { labChecks } from '../../lab-link/lab-checks';
import type { Check } from '../../safety/preflight';
import { MocapInterfaceError, type InterfaceTable } from '../../mocap/mocap-interface';
import { requireFile, UsageError } from '../errors';
import { labAddressOf, type LabOptions } from '../lab-run';

export interface LabCheckOptions extends LabOptions {
  scene: string;
}

/** Fresh state this long after connecting, s: the checks then judge what the devices say now. */
const SETTLE = 1;

/** The gripper's checks are judged by a run after it grips: checking moves nothing, so not here. */
const judgedByTheRun = (c: Check): boolean => c.id === 'pusher-held' || c.id === 'gripper-open';

/** One line per check, and its fix under a red one. */
export function checkLines(checks: readonly Check[]): string[] {
  return checks.flatMap((c) => [
    `${c.ok ? 'ok  ' : 'FAIL'}  ${c.label}: ${c.reason}`,
    ...(!c.ok && c.fix ? [`      fix: ${c.fix}`] : []),
  ]);
}

/** Connects, judges, disconnects; returns the exit status and the lines printed. */
export async function labCheck(
  opts: LabCheckOptions,
  say: (line: string) => void,
  /** This PC's network interfaces unless given (tests give a table). */
  interfaces?: InterfaceTable,
): Promise<{ status: 0 | 1; checks: Check[] }> {
  requireFile(opts.scene, '--scene');
  const scene = loadSceneFile(opts.scene);
  const setupFile = opts.setup ?? path.join(defaultSetupDir(), `${opts.robot}.json`);
  if (!existsSync(setupFile)) throw new UsageError(`no lab setup at ${setupFile}: give --setup FILE`);
  const setup = loadSetup(setupFile);
  const address: LabAddress = { ...labAddressOf(opts), ...(interfaces ? { interfaces } : {}) };
  let link: LabLink;
  try {
    link = await LabLink.connect(address, scene, setup, (notice) => say(`... ${notice}`));
  } catch (err) {
    if (err instanceof MocapInterfaceError) {
      say(`FAIL  Motion capture heard on the interface of the route to Motive: ${err.problem}`);
      say(`      fix: ${err.fix}`);
    } else say(`FAIL  Lab connected: ${(err as Error).message}`);
    return { status: 1, checks: [] };
  }
  try {
    await new Promise((r) => setTimeout(r, SETTLE * 1000));
    // The run's own checklist (lab-checks.ts): what lab check passes, a run's pre-flight passes.
    const report = labChecks(link, scene);
    const checks = report.checks.filter((c) => !judgedByTheRun(c));
    for (const line of checkLines(checks)) say(line);
    return { status: checks.every((c) => c.ok) ? 0 : 1, checks };
  } finally {
    await link.close();
  }
}

/** Adds `check` under `parapush lab`. */
export function registerLabCheckCommand(lab: Command): void {
  lab
    .command('check')
    .description(
      'commissioning checks of a lab without moving anything: controller, workspace, force limit, motion capture, calibration; each with its fix; exit 1 if any fails',
    )
    .requiredOption('--robot <host>', 'UR controller address')
    .requiredOption('--mocap <host>', 'Motive (NatNet) server address')
    .requiredOption('--scene <file>', 'scene file the lab is to run')
    .option(
      '--mocap-local <address>',
      'local interface for NatNet (default: the one on the route to --mocap, shown; 127.0.0.1 for a loopback server)',
    )
    .option('--setup <file>', 'lab setup (calibrations); default: <setup dir>/<robot host>.json')
    .option('--rtde-port <port>')
    .option('--script-port <port>')
    .option('--dashboard-port <port>')
    .option('--gripper-port <port>')
    .option('--natnet-port <port>', 'NatNet command port')
    .action(async (opts: LabCheckOptions) => {
      const { status } = await labCheck(opts, (line) => void process.stdout.write(`${line}\n`));
      process.exitCode = status;
    });
}
