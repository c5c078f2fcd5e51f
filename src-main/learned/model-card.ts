/**
 * The model card shipped beside the weights: what the model was trained on, how, how well it did
 * on held-out data, and the exact commands that reproduce it.
 */
import { z } from 'zod';
import { generatorSchema } from './dataset';
import type { TrainResult } from './train';

export const modelCardSchema = z
  .object({
    name: z.string(),
    createdAt: z.string(),
    seed: z.number().int(),
    backend: z.string(),
    dataset: z
      .object({
        transitions: z.number().int(),
        seed: z.number().int(),
        dt: z.number(),
        sliderCounts: z.record(z.string(), z.number().int()),
        contactRatio: z.number(),
        sha256: z.string(),
        generationSeconds: z.number(),
        /** The data set manifest's: absent for data of the single-stream generator. */
        generator: generatorSchema.optional(),
      })
      .strict(),
    training: z
      .object({
        layerSizes: z.array(z.number().int()),
        parameters: z.number().int(),
        trainTransitions: z.number().int(),
        validationTransitions: z.number().int(),
        epochsRun: z.number().int(),
        maxEpochs: z.number().int(),
        bestEpoch: z.number().int(),
        stoppedBy: z.string(),
        batchSize: z.number().int(),
        learningRate: z.number(),
        patience: z.number().int(),
        penetrationWeight: z.number(),
        slotShuffles: z.number().int(),
        seconds: z.number(),
      })
      .strict(),
    validation: z.object({ loss: z.number(), mse: z.number(), penetration: z.number() }).strict(),
    scale: z.string(),
    reproduce: z.array(z.string()),
  })
  .strict();
export type ModelCard = z.infer<typeof modelCardSchema>;

export function modelCardMarkdown(c: ModelCard): string {
  const t = c.training;
  const d = c.dataset;
  return [
    `# Model card: ${c.name}`,
    '',
    'Learned coarse model for Parareal (CVS 2020): MLP ' +
      `${t.layerSizes.join('-')} (ReLU, linear output), ${t.parameters} parameters, ` +
      `predicting each of 4 slider slots' pose change and velocity over a ${d.dt} s push.`,
    '',
    '| | |',
    '| --- | --- |',
    `| created | ${c.createdAt} |`,
    `| seed | ${c.seed} |`,
    `| backend | ${c.backend} |`,
    `| data | ${d.transitions} fine-model transitions (seed ${d.seed}; sliders ${JSON.stringify(d.sliderCounts)}; contact ${(100 * d.contactRatio).toFixed(1)}%; generated in ${d.generationSeconds.toFixed(0)} s) |`,
    `| generator | ${d.generator ? `blocks of ${d.generator.blockSize} (layout version ${d.generator.version}), slider mix ${d.generator.sliderMix.join(',')}` : 'single stream (before blocks)'} |`,
    `| split | ${t.trainTransitions} training (with ${t.slotShuffles} slot-shuffled cop${t.slotShuffles === 1 ? 'y' : 'ies'} of each multi-slider transition) / ${t.validationTransitions} validation |`,
    `| epochs | ${t.epochsRun} of at most ${t.maxEpochs} (best ${t.bestEpoch}; stopped by ${t.stoppedBy}) in ${t.seconds.toFixed(0)} s |`,
    `| optimiser | Adam, learning rate ${t.learningRate}, batch ${t.batchSize}, patience ${t.patience} |`,
    `| loss | MSE (normalised outputs) + ${t.penetrationWeight} x penetration penalty (mm^2) |`,
    `| validation loss | ${c.validation.loss.toPrecision(4)} (MSE ${c.validation.mse.toPrecision(4)}, penetration ${c.validation.penetration.toPrecision(4)} mm^2) |`,
    '',
    '## Scale',
    '',
    c.scale,
    '',
    '## Reproduce',
    '',
    '```sh',
    ...c.reproduce,
    '```',
    '',
    '![loss curve](loss-curve.svg)',
    '',
  ].join('\n');
}

/**
 * The `learn train` command line (`args` after `parapush`) that makes the same model again. A
 * wall-time budget stops at an epoch that depends on the machine, so a run the budget stopped is
 * repeated by the epoch count it reached, which gives the same weights on any machine.
 */
export function repeatableTrainCommand(
  args: readonly string[],
  epochsRun: number,
  stoppedBy: TrainResult['stoppedBy'],
): string {
  const dropped = stoppedBy === 'time' ? ['--max-minutes', '--epochs'] : ['--max-minutes'];
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const flag = arg.split('=')[0]!;
    if (!dropped.includes(flag)) kept.push(arg);
    else if (!arg.includes('=')) i++; // the flag's value is the next argument
  }
  if (stoppedBy === 'time') kept.push('--epochs', String(epochsRun));
  return ['npx parapush', ...kept].join(' ');
}
