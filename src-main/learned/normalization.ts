/**
 * Per-feature standardisation of the network's inputs and outputs. The statistics come from the
 * training split only and are saved with the weights: a model is useless without the exact
 * statistics it was trained with.
 */
import { z } from 'zod';

export const normalizationSchema = z
  .object({
    inputMean: z.array(z.number()),
    inputStd: z.array(z.number().positive()),
    outputMean: z.array(z.number()),
    outputStd: z.array(z.number().positive()),
  })
  .strict();
export type Normalization = z.infer<typeof normalizationSchema>;

/**
 * Features that never vary in the data (a parked slot's angle) get std 1 instead of 0, so they
 * normalise to 0 instead of dividing by zero.
 */
const MIN_STD = 1e-8;

function columnStats(rows: Float32Array, width: number): { mean: number[]; std: number[] } {
  const n = rows.length / width;
  if (!Number.isInteger(n) || n < 1) throw new Error('normalisation needs at least one full row');
  const mean = new Array<number>(width).fill(0);
  const sq = new Array<number>(width).fill(0);
  for (let r = 0; r < n; r++) for (let c = 0; c < width; c++) mean[c]! += rows[r * width + c]!;
  for (let c = 0; c < width; c++) mean[c]! /= n;
  for (let r = 0; r < n; r++)
    for (let c = 0; c < width; c++) sq[c]! += (rows[r * width + c]! - mean[c]!) ** 2;
  const std = sq.map((s) => {
    const v = Math.sqrt(s / n);
    return v > MIN_STD ? v : 1;
  });
  return { mean, std };
}

export function computeNormalization(
  inputs: Float32Array,
  inputWidth: number,
  outputs: Float32Array,
  outputWidth: number,
): Normalization {
  const i = columnStats(inputs, inputWidth);
  const o = columnStats(outputs, outputWidth);
  return { inputMean: i.mean, inputStd: i.std, outputMean: o.mean, outputStd: o.std };
}

/** (v - mean) / std, row by row, in place. */
export function standardize(
  rows: Float32Array,
  mean: readonly number[],
  std: readonly number[],
): Float32Array {
  const w = mean.length;
  for (let k = 0; k < rows.length; k++) rows[k] = (rows[k]! - mean[k % w]!) / std[k % w]!;
  return rows;
}

/** v * std + mean, row by row, in place (the inverse of standardize). */
export function unstandardize(
  rows: Float32Array | Float64Array,
  mean: readonly number[],
  std: readonly number[],
): typeof rows {
  const w = mean.length;
  for (let k = 0; k < rows.length; k++) rows[k] = rows[k]! * std[k % w]! + mean[k % w]!;
  return rows;
}
