/**
 * A transition data set made in blocks (generate.ts) and kept on disk block by block, so a long
 * generation can stop and resume, and be split over processes or machines:
 *
 *   DIR/generation.json     the settings every block was made with, and the count asked for last
 *   DIR/blocks/NNNNNN.bin   one block's transitions (float32le records, as in transitions.bin)
 *   DIR/blocks/NNNNNN.json  what the manifest needs from it: transitions, slider counts, contact
 *                           indices, seconds, the .bin's SHA-256
 *   DIR/manifest.json + DIR/transitions.bin   the data set (dataset.ts), once every block is there
 *
 * Every file is written atomically and a block's .json after its .bin, so a block whose .json
 * exists is complete: a killed run loses only the block it was making. `--count N` needs blocks
 * 0 .. ceil(N / blockSize) - 1, the last one possibly short. A block holding more transitions than
 * needed is used as its prefix (generate.ts draws a block's transitions in order); one holding
 * fewer is made again at the length needed.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { fineModelSettingsSchema } from '#contract/scene';
import {
  littleEndianBytes,
  MANIFEST_FILE,
  RECORD_FLOATS,
  recordsFromBytes,
  sha256,
  writeDataset,
  writeFileAtomic,
  type DatasetManifest,
} from './dataset';
import type { Block, BlockGenerator, GenerationSettings } from './generate';
import { pushGeometrySchema } from './geometry';
import { inShard, type Shard } from '../common/shard';
import { readStoredJson } from '../common/stored-json';

export const GENERATION_FILE = 'generation.json';
const BLOCKS_DIR = 'blocks';

const settingsSchema = z
  .object({
    seed: z.number().int(),
    dt: z.number().positive(),
    sliderMix: z.array(z.number().nonnegative()).length(4),
    blockSize: z.number().int().positive(),
    scene: z.string(),
    fine: fineModelSettingsSchema,
    geometry: pushGeometrySchema,
    sampling: z.record(z.string(), z.number()),
  })
  .strict();

const generationFileSchema = z
  .object({
    format: z.literal('parapush-transition-blocks'),
    version: z.literal(1),
    count: z.number().int().positive().describe('transitions the last run asked for'),
    command: z.string().describe('a command that makes the whole data set in one run'),
    settings: settingsSchema,
  })
  .strict();
type GenerationFile = z.infer<typeof generationFileSchema>;
type StoredSettings = GenerationFile['settings'];

const blockFileSchema = z
  .object({
    index: z.number().int().nonnegative(),
    count: z.number().int().positive(),
    sliderCounts: z.record(z.string(), z.number().int().nonnegative()),
    contacts: z.array(z.number().int().nonnegative()).describe('indices of the contact transitions'),
    seconds: z.number().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
type BlockFile = z.infer<typeof blockFileSchema>;

export class BlockStoreError extends Error {
  override name = 'BlockStoreError';
}

/** An existing directory holds blocks made with other settings; `field` names the first that differs. */
export class SettingsMismatchError extends BlockStoreError {
  override name = 'SettingsMismatchError';
  constructor(
    readonly field: keyof StoredSettings,
    message: string,
  ) {
    super(message);
  }
}

/** Blocks of `count` transitions: index and how many transitions of it are needed. */
function blockPlan(count: number, blockSize: number): { index: number; count: number }[] {
  const out = [];
  for (let index = 0; index * blockSize < count; index++)
    out.push({ index, count: Math.min(blockSize, count - index * blockSize) });
  return out;
}

const blockBase = (dir: string, index: number): string =>
  path.join(dir, BLOCKS_DIR, String(index).padStart(6, '0'));

/** JSON with object keys sorted, so settings compare equal whatever order they were written in. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

function storedSettings(s: GenerationSettings): StoredSettings {
  return settingsSchema.parse({ ...s, sampling: { ...s.sampling } });
}

function readGenerationFile(dir: string): GenerationFile | null {
  const file = path.join(dir, GENERATION_FILE);
  if (!existsSync(file)) return null;
  return readStoredJson(file, generationFileSchema, {
    what: 'block generation file',
    error: BlockStoreError,
  });
}

/** Throws SettingsMismatchError naming the first field in which `now` differs from `was`. */
function requireSameSettings(dir: string, was: StoredSettings, now: StoredSettings, what: string): void {
  for (const field of Object.keys(settingsSchema.shape) as (keyof StoredSettings)[]) {
    const a = canonical(was[field]);
    const b = canonical(now[field]);
    if (a !== b)
      throw new SettingsMismatchError(
        field,
        `${dir} holds blocks made with ${field} ${a}; ${what} ${field} ${b}`,
      );
  }
}

/**
 * Makes `dir` the home of a data set of `count` transitions with `settings`: a new directory is
 * set up; an existing one must hold blocks of the same settings (a different count is fine: its
 * blocks are reused). A data set of the single-stream generator is refused: its transitions are
 * not blocks.
 */
export function claimDirectory(
  dir: string,
  settings: GenerationSettings,
  count: number,
  command: string,
): void {
  const now = storedSettings(settings);
  const existing = readGenerationFile(dir);
  if (existing) requireSameSettings(dir, existing.settings, now, 'this run asks for');
  else if (existsSync(path.join(dir, MANIFEST_FILE)))
    throw new BlockStoreError(
      `${dir} holds a data set made without blocks (single-stream generator); choose another directory`,
    );
  mkdirSync(path.join(dir, BLOCKS_DIR), { recursive: true });
  const file: GenerationFile = {
    format: 'parapush-transition-blocks',
    version: 1,
    count,
    command,
    settings: now,
  };
  writeFileAtomic(path.join(dir, GENERATION_FILE), `${JSON.stringify(file, null, 2)}\n`);
}

function readBlockFile(dir: string, index: number): BlockFile | null {
  const file = `${blockBase(dir, index)}.json`;
  if (!existsSync(file)) return null;
  const block = readStoredJson(file, blockFileSchema, { what: 'block', error: BlockStoreError });
  if (block.index !== index) throw new BlockStoreError(`${file}: holds block ${block.index}`);
  return block;
}

/** True when block `index` is on disk with at least `count` transitions. */
function hasBlock(dir: string, index: number, count: number): boolean {
  const b = readBlockFile(dir, index);
  return b !== null && b.count >= count;
}

function writeBlock(dir: string, block: Block): void {
  const base = blockBase(dir, block.index);
  const bytes = littleEndianBytes(block.records);
  writeFileAtomic(`${base}.bin`, bytes);
  const record: BlockFile = {
    index: block.index,
    count: block.records.length / RECORD_FLOATS,
    sliderCounts: block.sliderCounts,
    contacts: block.contacts,
    seconds: block.seconds,
    sha256: sha256(bytes),
  };
  writeFileAtomic(`${base}.json`, `${JSON.stringify(record)}\n`);
}

/** Block `index` from disk, checked against its checksum. */
function readBlock(dir: string, index: number): { file: BlockFile; records: Float32Array } {
  const file = readBlockFile(dir, index);
  const bin = `${blockBase(dir, index)}.bin`;
  if (!file) throw new BlockStoreError(`${dir}: block ${index} is missing`);
  const bytes = readFileSync(bin);
  if (bytes.length !== file.count * RECORD_FLOATS * 4 || sha256(bytes) !== file.sha256)
    throw new BlockStoreError(
      `${bin}: does not match its checksum; delete it and its .json and run again to make it anew`,
    );
  return { file, records: recordsFromBytes(bytes) };
}

/** Blocks of the data set `dir` is set up for that belong to the shard. */
function shardBlocks(dir: string, shard: Shard): { index: number; count: number }[] {
  const g = readGenerationFile(dir);
  if (!g) throw new BlockStoreError(`${dir}: no ${GENERATION_FILE}`);
  return blockPlan(g.count, g.settings.blockSize).filter((b) => inShard(b.index, shard));
}

/** Blocks of the data set `dir` is set up for that are not on disk yet (the shard's only). */
export function missingBlocks(
  dir: string,
  shard: Shard = { index: 0, count: 1 },
): { index: number; count: number }[] {
  return shardBlocks(dir, shard).filter((b) => !hasBlock(dir, b.index, b.count));
}

/**
 * Writes manifest.json + transitions.bin from the blocks, when every block is there; returns
 * the manifest, or null (nothing written) while blocks are missing.
 */
export function assembleDataset(dir: string): DatasetManifest | null {
  const g = readGenerationFile(dir);
  if (!g) throw new BlockStoreError(`${dir}: no ${GENERATION_FILE}`);
  if (missingBlocks(dir).length > 0) return null;
  const s = g.settings;
  const records = new Float32Array(g.count * RECORD_FLOATS);
  const sliderCounts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0 };
  let contacts = 0;
  let seconds = 0;
  for (const want of blockPlan(g.count, s.blockSize)) {
    const { file, records: r } = readBlock(dir, want.index);
    records.set(r.subarray(0, want.count * RECORD_FLOATS), want.index * s.blockSize * RECORD_FLOATS);
    if (want.count === file.count) {
      for (const [n, c] of Object.entries(file.sliderCounts)) sliderCounts[n] = (sliderCounts[n] ?? 0) + c;
      contacts += file.contacts.length;
      seconds += file.seconds;
    } else {
      // A longer block than needed (the count was lowered): count what its prefix holds.
      for (let i = 0; i < want.count; i++) sliderCounts[String(r[i * RECORD_FLOATS])]!++;
      contacts += file.contacts.filter((i) => i < want.count).length;
      seconds += (file.seconds * want.count) / file.count;
    }
  }
  return writeDataset(dir, records, {
    dt: s.dt,
    seed: s.seed,
    scene: s.scene,
    fine: s.fine,
    geometry: s.geometry,
    sampling: s.sampling,
    sliderCounts,
    contact: { count: contacts, ratio: contacts / g.count },
    createdAt: new Date().toISOString(),
    generationSeconds: seconds,
    command: g.command,
    generator: { layout: 'blocks', version: 1, blockSize: s.blockSize, sliderMix: s.sliderMix },
  });
}

export interface GenerateDatasetOptions {
  shard?: Shard;
  signal?: AbortSignal;
  /** Called before the first block is made: blocks on disk already, blocks this run will make. */
  onStart?: (kept: number, toMake: number) => void;
  /** Called after each block is written: blocks made so far by this run, of toMake. */
  onBlock?: (made: number, toMake: number, block: Block) => void;
}

/**
 * Makes this shard's missing blocks of a directory claimed by claimDirectory, in index order,
 * writing each as it finishes; stops between blocks (and cancels the block in flight) when the
 * signal aborts. `open` is called only if there is work, so a run that just assembles starts no
 * worker.
 */
export async function makeBlocks(
  dir: string,
  open: () => BlockGenerator,
  o: GenerateDatasetOptions = {},
): Promise<void> {
  const shard = o.shard ?? { index: 0, count: 1 };
  const todo = missingBlocks(dir, shard);
  o.onStart?.(shardBlocks(dir, shard).length - todo.length, todo.length);
  if (todo.length === 0) return;
  const generator = open();
  let made = 0;
  for (const b of todo) {
    if (o.signal?.aborted) return;
    let block: Block;
    try {
      block = await generator.make(b.index, b.count, o.signal);
    } catch (e) {
      if (o.signal?.aborted) return;
      throw e;
    }
    writeBlock(dir, block);
    o.onBlock?.(++made, todo.length, block);
  }
}

/**
 * Copies into `into` the blocks of shard directories (made with the same settings and count) it
 * lacks, checking each against its checksum, and sets `into` up for the same data set.
 */
export function mergeShards(into: string, shards: readonly string[]): void {
  let plan: GenerationFile | null = readGenerationFile(into);
  let planDir = into;
  for (const dir of shards) {
    const g = readGenerationFile(dir);
    if (!g) throw new BlockStoreError(`${dir}: no ${GENERATION_FILE}: not a directory of \`learn generate\``);
    if (plan) {
      requireSameSettings(planDir, plan.settings, g.settings, `${dir} holds`);
      if (g.count !== plan.count)
        throw new BlockStoreError(
          `${planDir} is set up for ${plan.count} transitions, ${dir} for ${g.count}: give them the same --count`,
        );
    } else {
      plan = g;
      planDir = dir;
    }
  }
  if (!plan) throw new BlockStoreError('no generation.json in --into or the shard directories');
  mkdirSync(path.join(into, BLOCKS_DIR), { recursive: true });
  if (!existsSync(path.join(into, GENERATION_FILE)))
    writeFileAtomic(path.join(into, GENERATION_FILE), `${JSON.stringify(plan, null, 2)}\n`);
  for (const b of blockPlan(plan.count, plan.settings.blockSize)) {
    if (hasBlock(into, b.index, b.count)) continue;
    const from = shards.find((d) => path.resolve(d) !== path.resolve(into) && hasBlock(d, b.index, b.count));
    if (!from) continue;
    readBlock(from, b.index); // checked before it is trusted
    const src = blockBase(from, b.index);
    const dst = blockBase(into, b.index);
    for (const ext of ['.bin', '.json']) {
      const tmp = `${dst}${ext}.${process.pid}.tmp`;
      copyFileSync(`${src}${ext}`, tmp);
      renameSync(tmp, `${dst}${ext}`);
    }
  }
}
