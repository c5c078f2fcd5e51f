/**
 * A trained model on disk: a directory with
 *   model.json   layer sizes, normalisation statistics, the geometry and step it was trained for,
 *                and the SHA-256 of the weights (zod-validated on load);
 *   weights.bin  every layer's weights then biases, little-endian float32 (see network.ts);
 * plus the model card (model-card.json, model-card.md) and the loss curve (loss-curve.svg),
 * written by the trainer for people.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
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

function toBytes(weights: Float32Array): Uint8Array {
  const view = new DataView(new ArrayBuffer(weights.length * 4));
  for (let i = 0; i < weights.length; i++) view.setFloat32(i * 4, weights[i]!, true);
  return new Uint8Array(view.buffer);
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
  const bytes = toBytes(weights);
  const full = learnedModelMetaSchema.parse({
    format: 'parapush-learned-coarse',
    version: 1,
    ...meta,
    weightsSha256: createHash('sha256').update(bytes).digest('hex'),
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
  if (createHash('sha256').update(bytes).digest('hex') !== meta.weightsSha256)
    throw new ModelFileError(`${dir}/${WEIGHTS_FILE}: checksum does not match ${MODEL_FILE}`);
  if (bytes.length !== parameterCount(meta.layerSizes) * 4)
    throw new ModelFileError(`${dir}/${WEIGHTS_FILE}: wrong size for layers ${meta.layerSizes.join('-')}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const weights = new Float32Array(bytes.length / 4);
  for (let i = 0; i < weights.length; i++) weights[i] = view.getFloat32(i * 4, true);
  return { meta, weights };
}
