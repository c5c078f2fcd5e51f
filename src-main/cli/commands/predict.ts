/** `parapush predict`: one control sequence through coarse, fine or Parareal on the worker pool. */
import type { Command } from 'commander';
import { loadSceneFile } from '../../common/config-files';
import { endEffectorOf } from '#contract/end-effector/registry';
import { initialState, layoutForScene, type Tolerance } from '#contract/state';
import { FinePool } from '../../parareal/fine-pool';
import { realWorldSpread } from '../../parareal/parareal';
import { coarseModelled, createPredictor, parsePredictionModel } from '../../parareal/predictor';
import type { CoarseModelKind } from '#contract/planner-settings';
import { loadCoarseModel } from '../../planning/coarse-models';
import { parseControls, parseDuration } from '../controls';
import { UsageError } from '../errors';
import { GeometryMismatchError } from '../../learned/geometry';
import { ModelFileError } from '../../learned/model-file';
import { formatStates } from '../state-output';

interface PredictOptions {
  scene: string;
  controls: string;
  model: string;
  iterations: string;
  tolerance?: string;
  coarse: string;
  learnedModel?: string;
  workers?: string;
  dt: string;
  slice: string;
  json?: boolean;
}

export function parseTolerance(arg: string): Tolerance {
  const parts = arg.split(',').map(Number);
  if (parts.length !== 2 || parts.some((v) => !Number.isFinite(v) || v <= 0)) {
    throw new UsageError(`--tolerance: expected MM,DEG (two positive numbers), got "${arg}"`);
  }
  return { translation: parts[0]! / 1000, rotation: (parts[1]! * Math.PI) / 180 };
}

function positiveInt(name: string, arg: string, min = 1): number {
  const v = Number(arg);
  if (!Number.isInteger(v) || v < min)
    throw new UsageError(`${name}: expected a whole number >= ${min}, got "${arg}"`);
  return v;
}

/** The coarse model, with a learned model that cannot serve this scene reported as a usage error. */
async function coarseModelForCli(
  ...args: Parameters<typeof loadCoarseModel>
): ReturnType<typeof loadCoarseModel> {
  try {
    return await loadCoarseModel(...args);
  } catch (e) {
    if (e instanceof GeometryMismatchError || e instanceof ModelFileError)
      throw new UsageError(`--coarse learned: ${e.message}`);
    throw e;
  }
}

export function registerPredictCommand(program: Command): void {
  program
    .command('predict')
    .description(
      'predict the states of a control sequence with coarse, fine or Parareal (parallel fine slices)',
    )
    .requiredOption('--scene <file>', 'scene JSON file')
    .requiredOption('--controls <json>', 'array of [vx, vy] pusher velocities in m/s (inline JSON or a file)')
    .option('--model <model>', 'parareal | fine | coarse', 'parareal')
    .option('--iterations <K>', 'Parareal iterations (upper bound when --tolerance is given)', '2')
    .option(
      '--tolerance <mm,deg>',
      `stop Parareal when no slider pose changes more than this between iterations (e.g. ${realWorldSpread.translation * 1000},4.2)`,
    )
    .option('--coarse <model>', 'coarse model: analytical | learned', 'analytical')
    .option(
      '--learned-model <dir>',
      'learned model directory (default: the shipped resources/models/cvs-learned)',
    )
    .option('--workers <W>', 'fine-model worker processes (default: one per core)')
    .option('--slice <controls>', 'controls per Parareal time slice', '1')
    .option('--dt <seconds>', 'duration of each control', '1')
    .option('--json', 'print one JSON object {layout, iterations: [{k, states}], timing}')
    .action(async (opts: PredictOptions) => {
      const scene = loadSceneFile(opts.scene);
      const controls = parseControls(opts.controls, scene);
      const dt = parseDuration(opts.dt);
      if (opts.coarse !== 'analytical' && opts.coarse !== 'learned') {
        throw new UsageError(`--coarse: expected analytical or learned, got "${opts.coarse}"`);
      }
      const iterations = positiveInt('--iterations', opts.iterations, 0);
      const controlsPerSlice = positiveInt('--slice', opts.slice);
      if (controls.length % controlsPerSlice !== 0) {
        throw new UsageError(
          `--slice: ${controls.length} controls do not divide into slices of ${controlsPerSlice}`,
        );
      }
      let model;
      try {
        model = parsePredictionModel(opts.model);
      } catch (e) {
        throw new UsageError(`--model: ${(e as Error).message}`);
      }
      if (model.kind === 'parareal') {
        model = {
          ...model,
          iterations,
          controlsPerSlice,
          tolerance: opts.tolerance ? parseTolerance(opts.tolerance) : null,
        };
      }
      const pool = new FinePool(opts.workers ? { workers: positiveInt('--workers', opts.workers) } : {});
      try {
        // A tool the coarse models do not model (a gripper) has none (createPredictor says so
        // unless the model is fine).
        const coarse = coarseModelled(endEffectorOf(scene))
          ? await coarseModelForCli(
              scene,
              opts.coarse as CoarseModelKind,
              opts.learnedModel ? { learnedModelDir: opts.learnedModel } : {},
            )
          : undefined;
        const predictor = createPredictor(scene, pool, model, { dt, ...(coarse ? { coarse } : {}) });
        const result = await predictor.predict({ x0: initialState(scene), controls: [controls] });
        const seq = result.sequences[0]!;
        if (opts.json) {
          const iterationsOut = seq.iterates.map((states, k) => ({
            k: model.kind === 'fine' ? 0 : k,
            states: states.map((s) => Array.from(s)),
            ...(k > 0 ? { change: seq.changes[k - 1] } : {}),
          }));
          process.stdout.write(
            `${JSON.stringify({ layout: layoutForScene(scene).names, model: model.kind, stoppedBy: seq.stoppedBy, iterations: iterationsOut, timing: { ...result.timing, workers: pool.size } })}\n`,
          );
        } else {
          seq.iterates.forEach((states, k) => {
            const label =
              model.kind === 'parareal' ? `iteration ${k}${k === 0 ? ' (coarse)' : ''}` : model.kind;
            const change = k > 0 ? seq.changes[k - 1] : undefined;
            const changeText = change
              ? `  (largest change ${(change.translation * 1000).toFixed(2)} mm / ${((change.rotation * 180) / Math.PI).toFixed(2)} deg)`
              : '';
            process.stdout.write(
              `${label}${changeText}\n${formatStates(layoutForScene(scene), states, false)}\n`,
            );
          });
          const t = result.timing;
          process.stdout.write(
            `stopped by: ${seq.stoppedBy}; wall ${(t.wallTime * 1000).toFixed(1)} ms, coarse ${(t.coarseTime * 1000).toFixed(2)} ms, ${t.fineJobs} fine jobs (${t.fineJobsReused} reused) on ${pool.size} worker(s), overhead ${(t.overheadTime * 1000).toFixed(1)} ms\n`,
          );
        }
      } finally {
        await pool.close();
      }
    });
}
