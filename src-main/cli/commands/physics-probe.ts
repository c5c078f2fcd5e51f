/**
 * `parapush physics probe`: an identification run on a lab (real or virtual), through the same
 * protocols, checks and supervisor as `parapush run`, logged like any run: a few pushes chosen to
 * show how the lab's objects slide and turn (physics-probe/), for `parapush physics fit`.
 */
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Command } from 'commander';
import { readStoredJson } from '../../common/stored-json';
import { plannerSettingsOf, RunRecorder } from '../../run/run-recorder';
import { defaultSessionsDir } from '../../session/sessions-dir';
import { PROBE_NEEDS_PUSHER, probeRun } from '../../physics-probe/probe-run';
import { probePushSchema } from '../../physics-probe/probe-pushes';
import { requireFile, UsageError } from '../errors';
import { checklistLines, exitStatus } from './run';
import { connectLab, labSetupFor, labTaskOf, withRunOwner, type LabOptions } from '../lab-run';
import { z } from 'zod';

interface ProbeOptions extends LabOptions {
  scene?: string;
  task?: string;
  pushes?: string;
  workers?: string;
  json?: boolean;
}

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
      const loaded = labTaskOf(opts);
      if (endEffectorOf(loaded.scene).discRadius === undefined) throw new UsageError(PROBE_NEEDS_PUSHER);
      const pushes = opts.pushes
        ? readStoredJson(requireFile(opts.pushes, '--pushes'), z.array(probePushSchema).min(1), {
            what: 'probe pushes',
          })
        : undefined;
      const setup = labSetupFor(opts, loaded.scene);
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      const link = await connectLab(opts, loaded.scene, setup, log);
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
      try {
        const r = await withRunOwner({ workers: opts.workers, recorder, log }, (owner) =>
          probeRun({
            link,
            task: loaded.task,
            owner,
            ...(pushes ? { pushes } : {}),
            onPreflight: (report, stage) => checklistLines(report, stage).forEach(log),
            onDecision: (d) => log(`supervisor: ${d.kind}${'message' in d ? `: ${d.message}` : ''}`),
          }),
        );
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
        await link.close();
        await recorder.close();
      }
    });
}
