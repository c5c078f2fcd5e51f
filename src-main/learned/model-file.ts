/**
 * A trained model on disk: a directory with
 *   model.json   layer sizes, normalisation statistics, the geometry and step it was trained for,
 *                and the SHA-256 of the weights (zod-validated on load);
 *   weights.bin  every layer's weights then biases, little-endian float32 (see network.ts);
 * plus the model card (model-card.json, model-card.md) and the loss curve (loss-curve.svg),
 * written by the trainer for people.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { littleEndianBytes, recordsFromBytes, sha256 } from './dataset';
import { INPUT_SIZE, OUTPUT_SIZE } from './features';
import { pushGeometrySchema } from './geometry';
import { parameterCount } from './network';
import { normalizationSchema } from './normalization';
import { readStoredJson } from '../common/stored-json';

export const MODEL_FILE = 'model.json';
export const WEIGHTS_FILE = 'weights.bin';

export const learnedModelMetaSchema = z
  .object({
    format: z.literal('parapush-learned-coarse'),
    version: z.literal(1),
    layerSizes: z.array(z.number().int().positive()).min(2),
    activation: z.literal('relu'),
    dt: z.number().positive().describe('s, the control duration the model steps'),
    geometry: pushGeometrySchema,
    normalization: normalizationSchema,
    weightsSha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict()
  .superRefine((m, ctx) => {
    const sizes = m.layerSizes;
    if (sizes[0] !== INPUT_SIZE || sizes.at(-1) !== OUTPUT_SIZE)
      ctx.addIssue({
        code: 'custom',
        path: ['layerSizes'],
        message: `must run from ${INPUT_SIZE} inputs to ${OUTPUT_SIZE} outputs`,
      });
    const n = m.normalization;
    if (n.inputMean.length !== INPUT_SIZE || n.inputStd.length !== INPUT_SIZE)
      ctx.addIssue({
        code: 'custom',
        path: ['normalization'],
        message: `input statistics need ${INPUT_SIZE} entries`,
      });
    if (n.outputMean.length !== OUTPUT_SIZE || n.outputStd.length !== OUTPUT_SIZE)
      ctx.addIssue({
        code: 'custom',
        path: ['normalization'],
        message: `output statistics need ${OUTPUT_SIZE} entries`,
      });
  });
export type LearnedModelMeta = z.infer<typeof learnedModelMetaSchema>;

export interface LearnedModelFile {
  meta: LearnedModelMeta;
  weights: Float32Array;
}

export class ModelFileError extends Error {
  override name = 'ModelFileError';
}

export function saveLearnedModel(
  dir: string,
  meta: Omit<LearnedModelMeta, 'weightsSha256' | 'format' | 'version'>,
  weights: Float32Array,
): LearnedModelMeta {
  if (weights.length !== parameterCount(meta.layerSizes))
    throw new Error(
      `layer sizes ${meta.layerSizes.join('-')} need ${parameterCount(meta.layerSizes)} weights, got ${weights.length}`,
    );
  // Weights are stored as the data set's records are: float32, little-endian.
  const bytes = littleEndianBytes(weights);
  const full = learnedModelMetaSchema.parse({
    format: 'parapush-learned-coarse',
    version: 1,
    ...meta,
    weightsSha256: sha256(bytes),
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, WEIGHTS_FILE), bytes);
  writeFileSync(path.join(dir, MODEL_FILE), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}

export function loadLearnedModel(dir: string): LearnedModelFile {
  const meta = readStoredJson(path.join(dir, MODEL_FILE), learnedModelMetaSchema, {
    what: 'learned model',
    error: ModelFileError,
  });
  const bytes = readFileSync(path.join(dir, WEIGHTS_FILE));
  if (sha256(bytes) !== meta.weightsSha256)
    throw new ModelFileError(`${dir}/${WEIGHTS_FILE}: checksum does not match ${MODEL_FILE}`);
  if (bytes.length !== parameterCount(meta.layerSizes) * 4)
    throw new ModelFileError(`${dir}/${WEIGHTS_FILE}: wrong size for layers ${meta.layerSizes.join('-')}`);
  return { meta, weights: recordsFromBytes(bytes) };
}
