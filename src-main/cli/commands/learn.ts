/**
 * `parapush learn generate|train|evaluate`: the learned coarse model of CVS 2020, from fine-model
 * transitions to a model directory the predictor, the planner and the console can load.
 */
import type { Command } from 'commander';
import { loadSceneFile } from '../../contract/scene-file';
import { FinePool } from '../../parareal/fine-pool';
import { writeDataset } from '../../learned/dataset';
import { generateTransitions } from '../../learned/generate';
import { GeometryMismatchError } from '../../learned/geometry';
import { UsageError } from '../errors';
import { progressBar } from '../progress-bar';

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
}

export function registerLearnCommand(program: Command): void {
  const learn = program
    .command('learn')
    .description('the learned coarse model (CVS 2020): generate fine-model data, train, evaluate');

  learn
    .command('generate')
    .description('generate transitions with the fine model on the worker pool')
    .option(
      '--scene <file>',
      'scene whose pusher and slider geometry to learn',
      'resources/scenes/cvs-multi-object.json',
    )
    .requiredOption('--out <dir>', 'data set directory (manifest.json + transitions.bin)')
    .option('--count <N>', 'number of transitions (CVS 2020 used over 2 million)', '20000')
    .option('--seed <S>', 'random seed', '1')
    .option('--dt <seconds>', 'how long each random pusher velocity is held', '1')
    .option('--slider-mix <w1,w2,w3,w4>', 'relative share of transitions with 1, 2, 3, 4 sliders', '1,1,1,1')
    .option('--workers <W>', 'fine-model worker processes (default: cores - 1)')
    .action(async (o: GenerateOptions) => {
      const scene = loadSceneFile(o.scene);
      const count = wholeNumber('--count', o.count, 1);
      const seed = wholeNumber('--seed', o.seed, 0);
      const dt = positiveNumber('--dt', o.dt);
      const sliderMix = parseMix(o.sliderMix);
      const pool = new FinePool(o.workers ? { workers: wholeNumber('--workers', o.workers, 1) } : {});
      const bar = progressBar('generate');
      try {
        const { records, manifest } = await generateTransitions(scene, pool, {
          count,
          seed,
          dt,
          sliderMix,
          onProgress: (done, total) => bar.update(done, total),
        }).catch((e: unknown) => {
          if (e instanceof GeometryMismatchError) throw new UsageError(`--scene: ${e.message}`);
          throw e;
        });
        const full = writeDataset(o.out, records, manifest);
        bar.finish('done');
        process.stdout.write(
          `${full.count} transitions in ${o.out} (${full.generationSeconds.toFixed(0)} s); sliders ${JSON.stringify(full.sliderCounts)}; contact cases ${full.contact.count} (${(100 * full.contact.ratio).toFixed(1)}%), no-contact ${full.count - full.contact.count}\n`,
        );
      } finally {
        await pool.close();
      }
    });
}
