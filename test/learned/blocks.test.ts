import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assembleDataset,
  BlockStoreError,
  claimDirectory,
  makeBlocks,
  mergeShards,
  missingBlocks,
  SettingsMismatchError,
  type GenerateDatasetOptions,
} from '../../src-main/learned/blocks';
import {
  DATA_FILE,
  MANIFEST_FILE,
  readDataset,
  RECORD_FLOATS,
  writeDataset,
} from '../../src-main/learned/dataset';
import {
  BlockGenerator,
  generateTransitions,
  generationSettings,
  type GenerationSettings,
} from '../../src-main/learned/generate';
import { FinePool } from '../../src-main/parareal/fine-pool';
import type { Scene } from '#contract/scene';
import { referenceScene } from '../helpers/scenes';

// Euler at 2 ms over 0.1 s pushes: a handful of transitions costs well under a second.
const scene: Scene = {
  ...referenceScene('cvs-multi-object'),
  fine: { timestep: 0.002, integrator: 'Euler' },
};
const COUNT = 7;
const options = { seed: 3, dt: 0.1, sliderMix: [1, 1, 1, 1], blockSize: 3 };
const settings = generationSettings(scene, options);
const command = 'npx parapush learn generate --out DIR --count 7 --block 3';

let pool: FinePool;
beforeAll(() => {
  pool = new FinePool({ workers: 1 });
});
afterAll(() => pool.close());

const tmpDir = (): string => mkdtempSync(path.join(os.tmpdir(), 'parapush-blocks-'));
const bytesOf = (dir: string): Buffer => readFileSync(path.join(dir, DATA_FILE));

/** One `learn generate` run: claim, make this shard's missing blocks, assemble if complete. */
async function generate(
  dir: string,
  o: GenerateDatasetOptions & { count?: number; settings?: GenerationSettings } = {},
): Promise<ReturnType<typeof assembleDataset>> {
  const s = o.settings ?? settings;
  claimDirectory(dir, s, o.count ?? COUNT, command);
  await makeBlocks(dir, () => new BlockGenerator(scene, pool, s), o);
  return o.signal?.aborted ? null : assembleDataset(dir);
}

describe('block-wise transition generation', () => {
  let whole: string;
  beforeAll(async () => {
    whole = tmpDir();
    await generate(whole);
  });

  it('assembles a data set that readDataset accepts, with the manifest summed over the blocks', () => {
    const ds = readDataset(whole); // checks size and checksum
    expect(ds.manifest.count).toBe(COUNT);
    expect(ds.manifest).toMatchObject({
      seed: 3,
      dt: 0.1,
      command,
      generator: { layout: 'blocks', version: 1, blockSize: 3, sliderMix: [1, 1, 1, 1] },
    });
    const counted: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0 };
    for (let i = 0; i < COUNT; i++) counted[String(ds.records[i * RECORD_FLOATS])]!++;
    expect(ds.manifest.sliderCounts).toEqual(counted);
    const blockContacts = [0, 1, 2]
      .map(
        (b) =>
          JSON.parse(readFileSync(path.join(whole, 'blocks', `00000${b}.json`), 'utf8')) as {
            contacts: number[];
          },
      )
      .reduce((a, b) => a + b.contacts.length, 0);
    expect(ds.manifest.contact.count).toBe(blockContacts);
  });

  it('a run stopped after one block resumes to the same bytes as an uninterrupted one', async () => {
    const dir = tmpDir();
    const abort = new AbortController();
    const first = await generate(dir, { signal: abort.signal, onBlock: () => abort.abort() });
    expect(first).toBeNull();
    expect(existsSync(path.join(dir, DATA_FILE))).toBe(false);
    expect(missingBlocks(dir).map((b) => b.index)).toEqual([1, 2]);
    let kept = -1;
    await generate(dir, { onStart: (k) => (kept = k) });
    expect(kept).toBe(1);
    expect(bytesOf(dir).equals(bytesOf(whole))).toBe(true);
  });

  it('shards in separate directories, merged, give the same bytes as one run', async () => {
    const [s0, s1, into] = [tmpDir(), tmpDir(), tmpDir()];
    const made: number[][] = [[], []];
    // Shard 1 first: a block's content must not depend on which blocks were made before it.
    await generate(s1, { shard: { index: 1, count: 2 }, onBlock: (_m, _t, b) => made[1]!.push(b.index) });
    expect(
      await generate(s0, { shard: { index: 0, count: 2 }, onBlock: (_m, _t, b) => made[0]!.push(b.index) }),
    ).toBeNull();
    expect(made).toEqual([[0, 2], [1]]);
    mergeShards(into, [s0, s1]);
    expect(assembleDataset(into)).not.toBeNull();
    expect(bytesOf(into).equals(bytesOf(whole))).toBe(true);
  });

  it('shards run into one directory assemble the data set when the last one finishes', async () => {
    const dir = tmpDir();
    expect(await generate(dir, { shard: { index: 1, count: 2 } })).toBeNull();
    expect(await generate(dir, { shard: { index: 0, count: 2 } })).not.toBeNull();
    expect(bytesOf(dir).equals(bytesOf(whole))).toBe(true);
  });

  it('a larger --count reuses the blocks; a smaller one takes a prefix of them', async () => {
    const dir = tmpDir();
    await generate(dir, { count: 4 }); // block 1 holds 1 transition
    let made: number[] = [];
    await generate(dir, { onBlock: (_m, _t, b) => made.push(b.index) });
    expect(made).toEqual([1, 2]); // block 0 kept, short block 1 made again at full length
    expect(bytesOf(dir).equals(bytesOf(whole))).toBe(true);
    made = [];
    const five = await generate(dir, { count: 5, onBlock: (_m, _t, b) => made.push(b.index) });
    expect(made).toEqual([]);
    expect(bytesOf(dir).equals(bytesOf(whole).subarray(0, 5 * RECORD_FLOATS * 4))).toBe(true);
    const counted: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0 };
    const records = readDataset(dir).records;
    for (let i = 0; i < 5; i++) counted[String(records[i * RECORD_FLOATS])]!++;
    expect(five?.sliderCounts).toEqual(counted);
  });

  it('the in-memory generator gives the records of the assembled data set', async () => {
    const { records, contacts } = await generateTransitions(scene, pool, settings, COUNT);
    const ds = readDataset(whole);
    expect(Buffer.from(records.buffer).equals(Buffer.from(ds.records.buffer))).toBe(true);
    expect(contacts).toBe(ds.manifest.contact.count);
  });

  it.each([
    ['seed', { seed: 4 }],
    ['dt', { dt: 0.2 }],
    ['sliderMix', { sliderMix: [1, 0, 0, 1] }],
    ['blockSize', { blockSize: 4 }],
  ] as const)('refuses a directory made with another %s, naming it', (field, change) => {
    const other = generationSettings(scene, { ...options, ...change });
    expect(() => claimDirectory(whole, other, COUNT, command)).toThrow(
      expect.objectContaining({
        name: 'SettingsMismatchError',
        field,
        message: expect.stringContaining(field),
      }),
    );
  });

  it('refuses a directory made with another fine model or scene, naming it', () => {
    const rk4 = generationSettings({ ...scene, fine: { timestep: 0.001, integrator: 'RK4' } }, options);
    expect(() => claimDirectory(whole, rk4, COUNT, command)).toThrow(/holds blocks made with fine .*"Euler"/);
    const renamed = generationSettings({ ...scene, name: 'other-table' }, options);
    let err: unknown;
    try {
      claimDirectory(whole, renamed, COUNT, command);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsMismatchError);
    expect((err as SettingsMismatchError).field).toBe('scene');
  });

  it('merge refuses shard directories of other settings or another count', async () => {
    const other = tmpDir();
    claimDirectory(other, generationSettings(scene, { ...options, seed: 9 }), COUNT, command);
    expect(() => mergeShards(tmpDir(), [whole, other])).toThrow(/with seed 3; .* holds seed 9/);
    const longer = tmpDir();
    claimDirectory(longer, settings, COUNT + 1, command);
    expect(() => mergeShards(tmpDir(), [whole, longer])).toThrow(
      /7 transitions, .* 8: give them the same --count/,
    );
  });

  it('refuses a data set of the single-stream generator and a block that fails its checksum', async () => {
    const old = tmpDir();
    const { manifest } = readDataset(whole);
    const {
      sha256: _s,
      count: _c,
      format: _f,
      version: _v,
      encoding: _e,
      recordFloats: _r,
      fields: _fi,
      generator: _g,
      ...meta
    } = manifest;
    writeDataset(old, readDataset(whole).records, meta);
    expect(readDataset(old).manifest.generator).toBeUndefined(); // old manifests still read
    expect(() => claimDirectory(old, settings, COUNT, command)).toThrow(/single-stream generator/);

    const dir = tmpDir();
    await generate(dir, { count: 3 });
    const bin = path.join(dir, 'blocks', '000000.bin');
    const bytes = readFileSync(bin);
    bytes[8] = bytes[8]! ^ 1;
    writeFileSync(bin, bytes);
    expect(() => assembleDataset(dir)).toThrow(BlockStoreError);
    expect(() => assembleDataset(dir)).toThrow(/000000\.bin: does not match its checksum/);
    expect(existsSync(path.join(dir, MANIFEST_FILE))).toBe(true); // the earlier data set is left as it was
  });
});
