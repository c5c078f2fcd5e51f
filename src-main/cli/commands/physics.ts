/**
 * `parapush physics probe`: an identification run (physics-probe.ts).
 * `parapush physics check LOG...`: the fine model's prediction error over the executed controls
 * of session logs. `parapush physics fit LOG... --out FILE`: the scene's physics fitted to them
 * (src-main/lab-physics/).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadSceneFile } from '../../common/config-files';
import { physicsCheck, requireSameLayout } from '../../lab-physics/check';
import { checkSvg, checkTable } from '../../lab-physics/check-report';
import { PhysicsLogError, readLoggedPushes, type LoggedPushes } from '../../lab-physics/executed-pushes';
import { inProcessReplay, poolReplay, type Replay } from '../../lab-physics/prediction-error';
import { FinePool } from '../../parareal/fine-pool';
import { requireFile, UsageError } from '../errors';
import { wholeNumber } from '../whole-number';
import { progressBar } from '../../common/progress-bar';
import { fitRun } from '../../lab-physics/fit-run';
import { fitReport } from '../../lab-physics/fit-report';
import {
  applyPhysicsProfile,
  FITTABLE,
  fittableSchema,
  PhysicsProfileError,
  type Fittable,
} from '#contract/physics-profile';
import { loadPhysicsProfile } from '../../lab-physics/profile-file';
import type { Scene } from '#contract/scene';
import { registerProbeCommand } from './physics-probe';

/** The parameters named by --fit (a comma list). */
function fittables(list: string): Fittable[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const bad = names.filter((n) => !fittableSchema.safeParse(n).success);
  if (bad.length > 0 || names.length === 0)
    throw new UsageError(`--fit: expected a comma list of ${FITTABLE.join(', ')}, got "${list}"`);
  return [...new Set(names)] as Fittable[];
}

/** The model scene: --scene, else the first log's, with --profile's physics when given. */
function modelScene(
  sceneFile: string | undefined,
  profileFile: string | undefined,
  firstLog: LoggedPushes | undefined,
): { scene: Scene; file: string; latency: number } | null {
  if (!sceneFile && !profileFile) return null;
  const base = sceneFile ? loadSceneFile(sceneFile) : firstLog!.scene;
  const file = sceneFile ?? `${firstLog!.file}'s scene`;
  if (!profileFile) return { scene: base, file, latency: 0 };
  requireFile(profileFile, '--profile');
  try {
    const profile = loadPhysicsProfile(profileFile);
    return {
      scene: applyPhysicsProfile(base, profile, profileFile),
      file: `${file} with ${profileFile}`,
      latency: profile.mocap.latency,
    };
  } catch (err) {
    if (err instanceof PhysicsProfileError) throw new UsageError(err.message);
    throw err;
  }
}

/** Reads every log, each problem as a usage error naming the log and what it lacks. */
async function readLogs(files: readonly string[]): Promise<LoggedPushes[]> {
  const runs: LoggedPushes[] = [];
  for (const file of files) {
    requireFile(file);
    try {
      runs.push(await readLoggedPushes(file));
    } catch (err) {
      if (err instanceof PhysicsLogError) throw new UsageError(err.message);
      throw err;
    }
  }
  return runs;
}

/** The fine workers (W > 0) or this process (W = 0), closed after `work`. */
async function withReplay<T>(workers: number, work: (replay: Replay) => Promise<T>): Promise<T> {
  if (workers === 0) {
    const replay = inProcessReplay();
    try {
      return await work(replay);
    } finally {
      replay.dispose();
    }
  }
  const pool = new FinePool({ workers });
  try {
    return await work(poolReplay(pool));
  } finally {
    await pool.close();
  }
}

async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PhysicsLogError) throw new UsageError(err.message);
    throw err;
  }
}

export function registerPhysicsCommand(program: Command): void {
  const physics = program
    .command('physics')
    .description(
      'the fine model against the lab: prediction error from session logs, and physics fitted to them',
    );
  registerProbeCommand(physics);
  physics
    .command('check')
    .description(
      'for every executed control of the logs: the fine model from the observed start, driven as the robot moved, against the observed end',
    )
    .argument('<logs...>', 'session logs (.mcap) of lab runs (they need /robot/state)')
    .option('--scene <file>', "scene whose physics predicts (default: each log's own scene)")
    .option(
      '--profile <file>',
      'a physics profile (from physics fit) to predict with: its masses, frictions and latency',
    )
    .option(
      '--latency <seconds>',
      'motion capture this late (s): observed states are read that much later',
      '0',
    )
    .option('--workers <n>', 'fine-model worker processes (0: in this process)', '0')
    .option('--json', 'print the report as JSON (SI units)')
    .option('--plot <file.svg>', 'write an SVG of the error per executed control')
    .action(
      async (
        logs: string[],
        opts: {
          scene?: string;
          profile?: string;
          latency: string;
          workers: string;
          json?: boolean;
          plot?: string;
        },
      ) => {
        const asked = Number(opts.latency);
        if (!Number.isFinite(asked) || asked < 0 || asked > 1)
          throw new UsageError(`--latency: expected seconds from 0 to 1, got "${opts.latency}"`);
        const workers = wholeNumber('--workers', opts.workers, 0);
        const runs = await readLogs(logs);
        const model = modelScene(opts.scene, opts.profile, runs[0]);
        const latency = asked > 0 ? asked : (model?.latency ?? 0);
        const report = await asUsage(() =>
          withReplay(workers, (replay) => physicsCheck(replay, runs, { model, latency })),
        );
        if (opts.plot) writeFileSync(opts.plot, checkSvg(report));
        process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : checkTable(report));
      },
    );
  physics
    .command('fit')
    .description(
      "fit the scene's physics (object mass, object and table friction, motion-capture latency) to the logs' multi-step prediction error; writes a physics profile",
    )
    .argument('<logs...>', 'session logs (.mcap) of lab runs on one scene')
    .requiredOption(
      '--out <file>',
      'the physics profile to write (JSON); the fitted scene goes beside it as FILE.scene.json',
    )
    .option('--scene <file>', "the model scene (default: the first log's own)")
    .option('--fit <list>', `parameters to fit, a comma list of ${FITTABLE.join(', ')}`, 'friction,table')
    .option('--horizon <n>', 'controls per replay: the multi-step error the fit minimises', '3')
    .option('--max-evaluations <n>', "the optimiser's budget of objective evaluations", '60')
    .option('--hold-out <n>', 'runs held out for validation (default: every third, at least one of two)')
    .option(
      '--bootstrap <n>',
      'refits on runs drawn with replacement, for the uncertainty (0: curvature only)',
      '0',
    )
    .option('--workers <n>', 'fine-model worker processes (0: in this process)', '2')
    .option('--json', 'print the fit as JSON')
    .action(
      async (
        logs: string[],
        opts: {
          out: string;
          scene?: string;
          fit: string;
          horizon: string;
          maxEvaluations: string;
          holdOut?: string;
          bootstrap: string;
          workers: string;
          json?: boolean;
        },
      ) => {
        const parameters = fittables(opts.fit);
        const horizon = wholeNumber('--horizon', opts.horizon, 1);
        const maxEvaluations = wholeNumber(
          '--max-evaluations',
          opts.maxEvaluations,
          2 * parameters.length + 2,
        );
        const heldOut = opts.holdOut === undefined ? undefined : wholeNumber('--hold-out', opts.holdOut, 0);
        const bootstrap = wholeNumber('--bootstrap', opts.bootstrap, 0);
        const workers = wholeNumber('--workers', opts.workers, 0);
        const runs = await readLogs(logs);
        if (heldOut !== undefined && heldOut >= runs.length)
          throw new UsageError(`--hold-out: ${heldOut} of ${runs.length} logs leaves none to fit`);
        // The fit makes the planner's model agree with the lab: it replays with the planner's prediction settings.
        const base = opts.scene ? loadSceneFile(opts.scene) : runs[0]!.scene;
        const scene = { ...base, fine: runs[0]!.settings.prediction };
        const file = opts.scene ?? null;
        const bar = progressBar('fit');
        const result = await asUsage(() =>
          withReplay(workers, async (replay) => {
            for (const run of runs) requireSameLayout(run, scene, opts.scene ?? runs[0]!.file);
            return fitRun(replay, { scene, file }, runs, {
              parameters,
              horizon,
              maxEvaluations,
              heldOut,
              bootstrap,
              command: ['parapush', ...process.argv.slice(2)],
              progress: (done, total, best) => bar.update(done, total, `best ${best.toPrecision(3)}`),
            });
          }),
        );
        bar.finish();
        writeFileSync(opts.out, `${JSON.stringify(result.profile, null, 2)}\n`);
        const sceneOut = opts.out.replace(/(\.json)?$/, '.scene.json');
        // The fitted scene keeps the scene's own fine settings (the world's, not the planner's prediction).
        writeFileSync(sceneOut, `${JSON.stringify({ ...result.fitted, fine: base.fine }, null, 2)}\n`);
        process.stdout.write(
          opts.json
            ? `${JSON.stringify({ ...result.fit, heldOut: result.heldOut, profile: opts.out, scene: sceneOut }, null, 2)}\n`
            : fitReport(result, opts.out, sceneOut),
        );
      },
    );
}
