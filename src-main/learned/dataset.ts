/**
 * The transition data set on disk: a directory with `manifest.json` and `transitions.bin`.
 *
 * transitions.bin is a flat array of little-endian float32 records, RECORD_FLOATS each:
 *   [ active slider count n,
 *     padded start state (28 values, see slots.ts),
 *     commanded pusher velocity ux, uy,
 *     padded state after dt seconds of the fine model (28 values) ]
 * float32 keeps positions to well under a micrometre on a metre-sized table at half the size of
 * float64. The manifest (zod-validated) says how it was made and holds the file's SHA-256, so a
 * truncated or swapped file is caught on load. Both files are written atomically (tmp + rename),
 * the data file first, so a killed write leaves the previous data set whole or none at all.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { fineModelSettingsSchema } from '#contract/scene';
import { pushGeometrySchema } from './geometry';
import { paddedLayout } from './slots';
import { readStoredJson } from '../common/stored-json';

const STATE = paddedLayout.size;
export const RECORD_FLOATS = 1 + STATE + 2 + STATE;
export const RECORD_FIELDS: readonly string[] = [
  'sliders',
  ...paddedLayout.names.map((n) => `start.${n}`),
  'ux',
  'uy',
  ...paddedLayout.names.map((n) => `end.${n}`),
];

export const DATA_FILE = 'transitions.bin';
/** The block generator (generate.ts, blocks.ts): layout version 1. */
export const generatorSchema = z
  .object({
    layout: z.literal('blocks'),
    version: z.literal(1),
    blockSize: z.number().int().positive().describe('transitions per block'),
    sliderMix: z.array(z.number().nonnegative()).length(4).describe('weights of 1, 2, 3, 4 sliders'),
  })
  .strict();
export type GeneratorInfo = z.infer<typeof generatorSchema>;
export const MANIFEST_FILE = 'manifest.json';

export const datasetManifestSchema = z
  .object({
    format: z.literal('parapush-transitions'),
    version: z.literal(1),
    encoding: z.literal('float32le'),
    recordFloats: z.literal(RECORD_FLOATS),
    fields: z.array(z.string()).length(RECORD_FLOATS),
    count: z.number().int().positive(),
    dt: z.number().positive().describe('s, how long each control is held'),
    seed: z.number().int(),
    scene: z.string().describe('name of the scene the geometry came from'),
    /** Absent in data sets made before it was recorded: those used the scene's (RK4 at 1 ms). */
    fine: fineModelSettingsSchema.optional().describe('the fine model that produced the transitions'),
    geometry: pushGeometrySchema,
    sampling: z.record(z.string(), z.number()),
    sliderCounts: z.record(z.string(), z.number().int().nonnegative()),
    contact: z.object({ count: z.number().int().nonnegative(), ratio: z.number().min(0).max(1) }).strict(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    createdAt: z.string(),
    generationSeconds: z.number().nonnegative(),
    command: z.string().describe('the command line that generated the data'),
    /** Absent in data sets made by the single-stream generator, before blocks. */
    generator: generatorSchema.optional().describe('how the start states were drawn'),
  })
  .strict();
export type DatasetManifest = z.infer<typeof datasetManifestSchema>;

export interface Dataset {
  manifest: DatasetManifest;
  records: Float32Array;
}

export class DatasetError extends Error {
  override name = 'DatasetError';
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function littleEndianBytes(records: Float32Array): Uint8Array {
  const view = new DataView(new ArrayBuffer(records.length * 4));
  for (let i = 0; i < records.length; i++) view.setFloat32(i * 4, records[i]!, true);
  return new Uint8Array(view.buffer);
}

export function writeDataset(
  dir: string,
  records: Float32Array,
  manifest: Omit<
    DatasetManifest,
    'sha256' | 'count' | 'format' | 'version' | 'encoding' | 'recordFloats' | 'fields'
  >,
): DatasetManifest {
  if (records.length % RECORD_FLOATS !== 0) throw new Error('records are not a whole number of transitions');
  mkdirSync(dir, { recursive: true });
  const bytes = littleEndianBytes(records);
  const full = datasetManifestSchema.parse({
    format: 'parapush-transitions',
    version: 1,
    encoding: 'float32le',
    recordFloats: RECORD_FLOATS,
    fields: RECORD_FIELDS,
    count: records.length / RECORD_FLOATS,
    sha256: sha256(bytes),
    ...manifest,
  });
  writeFileAtomic(path.join(dir, DATA_FILE), bytes);
  writeFileAtomic(path.join(dir, MANIFEST_FILE), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}

/** Writes through a temporary file and a rename, so a reader never sees half a file. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** float32 little-endian bytes back to records. */
export function recordsFromBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records = new Float32Array(bytes.length / 4);
  for (let i = 0; i < records.length; i++) records[i] = view.getFloat32(i * 4, true);
  return records;
}

export function readDataset(dir: string): Dataset {
  const manifest = readStoredJson(path.join(dir, MANIFEST_FILE), datasetManifestSchema, {
    what: 'data-set manifest',
    error: DatasetError,
  });
  const bytes = readFileSync(path.join(dir, DATA_FILE));
  if (bytes.length !== manifest.count * RECORD_FLOATS * 4)
    throw new DatasetError(
      `${dir}/${DATA_FILE}: ${bytes.length} bytes, the manifest says ${manifest.count} records`,
    );
  if (sha256(bytes) !== manifest.sha256)
    throw new DatasetError(`${dir}/${DATA_FILE}: checksum does not match the manifest`);
  return { manifest, records: recordsFromBytes(bytes) };
}

/** Views of record i: slider count, padded start state, control, padded end state (float64 copies). */
export function recordAt(
  records: Float32Array,
  i: number,
): { sliders: number; start: Float64Array; ux: number; uy: number; end: Float64Array } {
  const o = i * RECORD_FLOATS;
  return {
    sliders: records[o]!,
    start: Float64Array.from(records.subarray(o + 1, o + 1 + STATE)),
    ux: records[o + 1 + STATE]!,
    uy: records[o + 2 + STATE]!,
    end: Float64Array.from(records.subarray(o + 3 + STATE, o + 3 + 2 * STATE)),
  };
}
