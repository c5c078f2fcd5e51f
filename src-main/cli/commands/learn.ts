/**
 * `parapush learn generate|merge|train|evaluate`: the learned coarse model of CVS 2020, from
 * fine-model transitions to a model directory the predictor, the planner and the console can load.
 * Generation is resumable and shardable (blocks.ts): a run makes the blocks its directory lacks.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_PREDICTION, fineModelSettingsSchema, type Scene } from '#contract/scene';
import { loadSceneFile } from '../../common/config-files';
import { problemsOf } from '#contract/scene-file';
import { FineJobError, FinePool } from '../../parareal/fine-pool';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import {
  assembleDataset,
  BlockStoreError,
  claimDirectory,
  makeBlocks,
  mergeShards,
  missingBlocks,
  SettingsMismatchError,
} from '../../learned/blocks';
import { DatasetError, readDataset, type Dataset, type DatasetManifest } from '../../learned/dataset';
import { singleStepError } from '../../learned/evaluate';
import { INPUT_SIZE, OUTPUT_SIZE } from '../../learned/features';
import { BlockGenerator, DEFAULT_BLOCK_SIZE, generationSettings } from '../../learned/generate';
import { GeometryMismatchError } from '../../learned/geometry';
import { defaultLearnedModelDir, LearnedCoarseModel } from '../../learned/learned-coarse-model';
import { lossCurveSvg } from '../../learned/loss-plot';
import { modelCardMarkdown, repeatableTrainCommand, type ModelCard } from '../../learned/model-card';
import { loadLearnedModel, ModelFileError, saveLearnedModel } from '../../learned/model-file';
import { exportWeights, HIDDEN_UNITS, parameterCount } from '../../learned/network';
import { tfBackendReady } from '../../learned/tf-backend';
import { defaultTrainOptions, trainModel } from '../../learned/train';
import { parseFineSpec } from '../controls';
import { EXIT_FAILURE, requireFile, UsageError } from '../errors';
import { parseShard } from '../shard-option';
import { progressBar } from '../../common/progress-bar';

function wholeNumber(name: string, arg: string, min: number): number {
  const v = Number(arg);
  if (!Number.isInteger(v) || v < min)
    throw new UsageError(`${name}: expected a whole number >= ${min}, got "${arg}"`);
  return v;
}

function positiveNumber(name: string, arg: string): number {
  const v = Number(arg);
  if (!Number.isFinite(v) || v <= 0)
    throw new UsageError(`${name}: expected a positive number, got "${arg}"`);
  return v;
}

function parseMix(arg: string): number[] {
  const w = arg.split(',').map(Number);
  if (w.length !== 4 || w.some((v) => !Number.isFinite(v) || v < 0) || w.every((v) => v === 0))
    throw new UsageError(
      `--slider-mix: expected four non-negative weights for 1,2,3,4 sliders, got "${arg}"`,
    );
  return w;
}

interface GenerateOptions {
  scene: string;
  out: string;
  count: string;
  seed: string;
  dt: string;
  sliderMix: string;
  workers?: string;
  fine: string;
  block: string;
  shard: string;
}

/** The option that sets each field of the generation settings, for a refusal that says what to change. */
const SETTING_OPTION: Record<SettingsMismatchError['field'], string> = {
  seed: '--seed',
  dt: '--dt',
  sliderMix: '--slider-mix',
  blockSize: '--block',
  scene: '--scene',
  geometry: '--scene',
  fine: '--fine',
  sampling: 'the sampling settings of this version of parapush',
};

/** Block-store errors are the user's directories: one line, exit 2. */
function blockStoreUsage<T>(option: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SettingsMismatchError)
      throw new UsageError(
        `${option}: ${e.message} (${SETTING_OPTION[e.field]}); use the same settings or another directory`,
      );
    if (e instanceof BlockStoreError || e instanceof DatasetError)
      throw new UsageError(`${option}: ${e.message}`);
    throw e;
  }
}

function reportDataset(dir: string, full: DatasetManifest): void {
  process.stdout.write(
    `${full.count} transitions in ${dir} (${full.generationSeconds.toFixed(0)} s of generation); sliders ${JSON.stringify(full.sliderCounts)}; contact cases ${full.contact.count} (${(100 * full.contact.ratio).toFixed(1)}%), no-contact ${full.count - full.contact.count}\n`,
  );
}

/** Says what is missing when a run leaves blocks of other shards to make. */
function reportMissing(dir: string): void {
  const missing = missingBlocks(dir).map((b) => b.index);
  process.stdout.write(
    `${dir}: ${missing.length} block(s) still missing (${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', ...' : ''}): run the other shards into it, or into their own directories and \`learn merge\` them\n`,
  );
}

/** --fine INTEGRATOR:MS, within the scene file's limits for the fine model. */
function fineSettings(spec: string): Scene['fine'] {
  const r = fineModelSettingsSchema.safeParse(parseFineSpec('--fine', spec));
  if (r.success) return r.data;
  throw new UsageError(
    `--fine: ${problemsOf(r.error)
      .map((p) => `${p.path}: ${p.message}`)
      .join('; ')}`,
  );
}

function loadData(dir: string): Dataset {
  requireFile(dir, '--data');
  try {
    return readDataset(dir);
  } catch (e) {
    if (e instanceof DatasetError) throw new UsageError(`--data: ${e.message}`);
    throw e;
  }
}

interface TrainCliOptions {
  data: string;
  out: string;
  seed: string;
  epochs: string;
  batch: string;
  lr: string;
  validation: string;
  patience: string;
  penetrationWeight: string;
  slotShuffles: string;
  maxMinutes?: string;
}

interface EvaluateCliOptions {
  data: string;
  model: string;
  scene: string;
  limit?: string;
}

export function registerLearnCommand(program: Command): void {
  const learn = program
    .command('learn')
    .description('the learned coarse model (CVS 2020): generate fine-model data, train, evaluate');

  addGenerateCommand(learn);
  addMergeCommand(learn);
  addTrainCommand(learn);
  addEvaluateCommand(learn);
}

/** `learn generate`: fine-model transitions on the worker pool (resumable, shardable). */
function addGenerateCommand(learn: Command): void {
  learn
    .command('generate')
    .description('generate transitions with the fine model on the worker pool (resumable, shardable)')
    .option(
      '--scene <file>',
      'scene whose pusher and slider geometry to learn',
      'resources/scenes/cvs-multi-object.json',
    )
    .requiredOption(
      '--out <dir>',
      'data set directory: blocks/ and generation.json, then manifest.json + transitions.bin once every block is made',
    )
    .option('--count <N>', 'number of transitions (CVS 2020 used over 2 million)', '20000')
    .option('--seed <S>', 'random seed', '1')
    .option('--dt <seconds>', 'how long each random pusher velocity is held', '1')
    .option('--slider-mix <w1,w2,w3,w4>', 'relative share of transitions with 1, 2, 3, 4 sliders', '1,1,1,1')
    .option('--workers <W>', 'fine-model worker processes (default: one per core)')
    .option(
      '--fine <INTEGRATOR:MS>',
      "the fine model to learn from: the planner's prediction model, which Parareal corrects towards",
      `${DEFAULT_PREDICTION.integrator}:${DEFAULT_PREDICTION.timestep * 1000}`,
    )
    .option(
      '--block <N>',
      'transitions per block, the unit of resuming and sharding (a setting, like --seed)',
      String(DEFAULT_BLOCK_SIZE),
    )
    .option(
      '--shard <i/n>',
      'make only blocks i, i+n, i+2n, ... (other processes or machines make the rest; see `learn merge`)',
      '0/1',
    )
    .action(async (o: GenerateOptions) => {
      const { scene, count, settings, shard, workers, command } = generationOf(o);
      blockStoreUsage('--out', () => claimDirectory(o.out, settings, count, command));
      const pools: FinePool[] = [];
      const bar = progressBar('generate');
      let replaced = 0;
      let blocksNote = 'blocks';
      const abort = new AbortController();
      const onSigint = (): void => abort.abort();
      process.once('SIGINT', onSigint);
      try {
        await makeBlocks(
          o.out,
          () => {
            const pool = new FinePool({
              ...(workers ? { workers } : {}),
              // A stalled or dead worker costs a retry, not the run; the operator still hears of it.
              onWorkerReplaced: (r) => {
                blocksNote = `blocks, ${++replaced} worker${replaced === 1 ? '' : 's'} replaced`;
                bar.log(`generate: ${r.reason}: worker replaced, ${r.requeued} of its jobs queued again`);
              },
            });
            pools.push(pool);
            return new BlockGenerator(scene, pool, settings);
          },
          {
            shard,
            signal: abort.signal,
            onStart: (kept, toMake) =>
              process.stderr.write(
                `${o.out}: ${kept} of ${kept + toMake} blocks${shard.count > 1 ? ` of shard ${o.shard}` : ''} already made, ${toMake} to make\n`,
              ),
            onBlock: (made, toMake) => bar.update(made, toMake, blocksNote),
          },
        );
      } catch (e) {
        // A job that failed for good (its block and transition named): hours of blocks are not lost.
        if (!(e instanceof FineJobError)) throw e;
        bar.finish('failed');
        process.stderr.write(
          `parapush: ${e.message}\nfinished blocks are kept; run the same command again to resume\n`,
        );
        process.exitCode = EXIT_FAILURE;
        return;
      } finally {
        process.off('SIGINT', onSigint);
        for (const pool of pools) await pool.close();
      }
      if (abort.signal.aborted) {
        bar.finish('interrupted');
        process.stderr.write('interrupted: finished blocks are kept; run the same command again to resume\n');
        return;
      }
      bar.finish('done');
      const full = blockStoreUsage('--out', () => assembleDataset(o.out));
      if (full) reportDataset(o.out, full);
      else reportMissing(o.out);
    });
}

/**
 * What `learn generate` makes, from its options: the scene with the fine model to learn from, the
 * count, the generation settings, this process's shard and workers, and the command that makes the
 * same data set in one run.
 */
function generationOf(o: GenerateOptions) {
  const scene = { ...loadSceneFile(o.scene), fine: fineSettings(o.fine) };
  const count = wholeNumber('--count', o.count, 1);
  const seed = wholeNumber('--seed', o.seed, 0);
  const dt = positiveNumber('--dt', o.dt);
  const sliderMix = parseMix(o.sliderMix);
  const blockSize = wholeNumber('--block', o.block, 1);
  const shard = parseShard(o.shard);
  const workers = o.workers ? wholeNumber('--workers', o.workers, 1) : undefined;
  let settings;
  try {
    settings = generationSettings(scene, { seed, dt, sliderMix, blockSize });
  } catch (e) {
    if (e instanceof GeometryMismatchError) throw new UsageError(`--scene: ${e.message}`);
    throw e;
  }
  // The command that makes the same data set in one run, whatever shards and workers made it.
  const command = [
    'npx parapush learn generate',
    `--scene ${o.scene} --out ${o.out} --count ${count} --seed ${seed} --dt ${dt}`,
    `--slider-mix ${sliderMix.join(',')} --fine ${o.fine} --block ${blockSize}`,
  ].join(' ');
  return { scene, count, settings, shard, workers, command };
}

/** `learn merge`: generated shards joined into one data set. */
function addMergeCommand(learn: Command): void {
  learn
    .command('merge')
    .description('copy the blocks of shard directories into one and assemble the data set when all are there')
    .argument('<shards...>', 'directories of `learn generate --shard` runs (same settings and --count)')
    .requiredOption('--into <dir>', 'data set directory (may be one of the shards)')
    .action((shards: string[], o: { into: string }) => {
      for (const dir of shards) requireFile(dir, 'merge');
      blockStoreUsage('merge', () => mergeShards(o.into, shards));
      const full = blockStoreUsage('merge', () => assembleDataset(o.into));
      if (full) reportDataset(o.into, full);
      else reportMissing(o.into);
    });
}

/** `learn train`: the learned coarse model trained on a data set. */
function addTrainCommand(learn: Command): void {
  learn
    .command('train')
    .description('train the coarse network on a data set; writes weights, statistics, model card, loss curve')
    .requiredOption('--data <dir>', 'data set directory from `learn generate`')
    .requiredOption(
      '--out <dir>',
      `model directory (the shipped model: ${path.relative(process.cwd(), defaultLearnedModelDir)})`,
    )
    .option('--seed <S>', 'seed for initialisation, split and shuffling', '1')
    .option('--epochs <N>', 'most epochs (CVS 2020: 100)', String(defaultTrainOptions.epochs))
    .option('--batch <N>', 'mini-batch size (CVS 2020: 1024)', String(defaultTrainOptions.batchSize))
    .option('--lr <rate>', 'Adam learning rate (CVS 2020: 5e-4)', String(defaultTrainOptions.learningRate))
    .option(
      '--validation <fraction>',
      'share of transitions held out for validation',
      String(defaultTrainOptions.validationFraction),
    )
    .option(
      '--patience <N>',
      'early stopping: epochs without a better validation loss',
      String(defaultTrainOptions.patience),
    )
    .option(
      '--penetration-weight <w>',
      'weight of the penetration penalty (mm^2) in the loss',
      String(defaultTrainOptions.penetrationWeight),
    )
    .option(
      '--slot-shuffles <N>',
      'extra copies of each multi-slider training transition with its slots shuffled',
      String(defaultTrainOptions.slotShuffles),
    )
    .option('--max-minutes <m>', 'stop after the epoch that crosses this wall time')
    .action(async (o: TrainCliOptions) => {
      const dataset = loadData(o.data);
      const t = trainSettings(o);
      const backend = await tfBackendReady();
      process.stderr.write(`TensorFlow.js backend: ${backend}; ${dataset.manifest.count} transitions\n`);
      const bar = progressBar('train');
      const result = await trainModel(dataset, {
        ...t,
        onEpoch: (e, best) =>
          bar.update(
            e.epoch,
            t.epochs,
            `train ${e.trainLoss.toPrecision(3)} val ${e.valLoss.toPrecision(3)} (best epoch ${best})`,
          ),
      });
      bar.finish(`stopped by ${result.stoppedBy}`);
      const layerSizes = [INPUT_SIZE, ...HIDDEN_UNITS, OUTPUT_SIZE];
      const m = dataset.manifest;
      saveLearnedModel(
        o.out,
        {
          layerSizes,
          activation: 'relu',
          dt: m.dt,
          geometry: m.geometry,
          normalization: result.normalization,
        },
        exportWeights(result.mlp),
      );
      const card = modelCardOf(o.out, m, result, t, backend, layerSizes);
      writeFileSync(path.join(o.out, 'model-card.json'), `${JSON.stringify(card, null, 2)}\n`);
      writeFileSync(path.join(o.out, 'model-card.md'), modelCardMarkdown(card));
      writeFileSync(
        path.join(o.out, 'loss-curve.svg'),
        lossCurveSvg(
          result.history,
          result.bestEpoch,
          `${card.name}: loss per epoch (${m.count} transitions)`,
        ),
      );
      const best = result.history[result.bestEpoch - 1]!;
      process.stdout.write(
        `model in ${o.out}: ${result.history.length} epochs (best ${result.bestEpoch}, ${result.stoppedBy}), validation loss ${best.valLoss.toPrecision(4)} (MSE ${best.valMse.toPrecision(4)}, penetration ${best.valPenetration.toPrecision(4)} mm^2), ${result.seconds.toFixed(0)} s\n`,
      );
    });
}

/** The training options of `learn train`, checked. */
function trainSettings(o: TrainCliOptions) {
  const validationFraction = positiveNumber('--validation', o.validation);
  if (validationFraction >= 1) throw new UsageError('--validation: expected a fraction below 1');
  const penetrationWeight = Number(o.penetrationWeight);
  if (!Number.isFinite(penetrationWeight) || penetrationWeight < 0)
    throw new UsageError(`--penetration-weight: expected a number >= 0, got "${o.penetrationWeight}"`);
  return {
    seed: wholeNumber('--seed', o.seed, 0),
    epochs: wholeNumber('--epochs', o.epochs, 1),
    batchSize: wholeNumber('--batch', o.batch, 1),
    learningRate: positiveNumber('--lr', o.lr),
    validationFraction,
    patience: wholeNumber('--patience', o.patience, 1),
    penetrationWeight,
    slotShuffles: wholeNumber('--slot-shuffles', o.slotShuffles, 0),
    maxDuration: o.maxMinutes ? positiveNumber('--max-minutes', o.maxMinutes) * 60 : null,
  };
}

/** The model card of a trained model: its data set, its training and its validation loss. */
function modelCardOf(
  out: string,
  m: ReturnType<typeof loadData>['manifest'],
  result: Awaited<ReturnType<typeof trainModel>>,
  t: ReturnType<typeof trainSettings>,
  backend: string,
  layerSizes: number[],
): ModelCard {
  const best = result.history[result.bestEpoch - 1]!;
  return {
    name: path.basename(path.resolve(out)),
    createdAt: new Date().toISOString(),
    seed: t.seed,
    backend,
    dataset: {
      transitions: m.count,
      seed: m.seed,
      dt: m.dt,
      sliderCounts: m.sliderCounts,
      contactRatio: m.contact.ratio,
      sha256: m.sha256,
      generationSeconds: m.generationSeconds,
      ...(m.generator ? { generator: m.generator } : {}),
    },
    training: {
      layerSizes,
      parameters: parameterCount(layerSizes),
      trainTransitions: result.trainCount,
      validationTransitions: result.validationCount,
      epochsRun: result.history.length,
      maxEpochs: t.epochs,
      bestEpoch: result.bestEpoch,
      stoppedBy: result.stoppedBy,
      batchSize: t.batchSize,
      learningRate: t.learningRate,
      patience: t.patience,
      penetrationWeight: t.penetrationWeight,
      slotShuffles: t.slotShuffles,
      seconds: result.seconds,
    },
    validation: { loss: best.valLoss, mse: best.valMse, penetration: best.valPenetration },
    scale:
      `CVS 2020 trained on more than 2 million transitions for 100 epochs on a GPU. This model was trained on ${m.count} ` +
      `transitions (generated in ${(m.generationSeconds / 60).toFixed(0)} min) for ${result.history.length} epochs ` +
      `(${(result.seconds / 60).toFixed(0)} min) on a shared 2-core CPU without a GPU. The same commands with ` +
      '`--count 2000000` and `--epochs 100` run the full-scale recipe given the time.',
    reproduce: [
      m.command,
      repeatableTrainCommand(process.argv.slice(2), result.history.length, result.stoppedBy),
    ],
  };
}

/** `learn evaluate`: a trained model against the fine model. */
function addEvaluateCommand(learn: Command): void {
  learn
    .command('evaluate')
    .description('single-step error of the learned and the analytical coarse model against the fine model')
    .requiredOption('--data <dir>', 'data set directory (ideally one not trained on: another --seed)')
    .option('--model <dir>', 'learned model directory', defaultLearnedModelDir)
    .option(
      '--scene <file>',
      'scene the data set was generated for',
      'resources/scenes/cvs-multi-object.json',
    )
    .option('--limit <N>', 'evaluate only the first N transitions')
    .action(async (o: EvaluateCliOptions) => {
      const dataset = loadData(o.data);
      const scene = loadSceneFile(o.scene);
      let file;
      try {
        file = loadLearnedModel(o.model);
      } catch (e) {
        if (e instanceof ModelFileError) throw new UsageError(`--model: ${e.message}`);
        throw e;
      }
      if (Math.abs(file.meta.dt - dataset.manifest.dt) > 1e-9)
        throw new UsageError(
          `--model: ${o.model} steps ${file.meta.dt} s controls, the data set's are ${dataset.manifest.dt} s`,
        );
      await tfBackendReady();
      const limit = o.limit ? wholeNumber('--limit', o.limit, 1) : dataset.manifest.count;
      const rows = [
        {
          model: 'learned',
          ...singleStepError(dataset, scene, (s) => new LearnedCoarseModel(s, file), limit),
        },
        {
          model: 'analytical',
          ...singleStepError(dataset, scene, (s) => new AnalyticalCoarseModel(s), limit),
        },
      ];
      process.stdout.write(
        `single-step slider pose error vs the fine model (${rows[0]!.transitions} transitions of ${dataset.manifest.dt} s)\n`,
      );
      process.stdout.write('model       all mm   all deg  contact mm  contact deg  free mm  free deg\n');
      for (const r of rows) {
        process.stdout.write(
          `${r.model.padEnd(10)} ${r.mm.toFixed(2).padStart(7)} ${r.deg.toFixed(2).padStart(9)} ${r.contactMm.toFixed(2).padStart(11)} ${r.contactDeg.toFixed(2).padStart(12)} ${r.freeMm.toFixed(2).padStart(8)} ${r.freeDeg.toFixed(2).padStart(9)}\n`,
        );
      }
    });
}
