import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DATA_FILE,
  DatasetError,
  readDataset,
  recordAt,
  RECORD_FLOATS,
  writeDataset,
} from '../../src-main/learned/dataset';
import { pushGeometryOf } from '../../src-main/learned/geometry';
import { paddedLayout } from '../../src-main/learned/slots';
import { referenceScene } from '../helpers/scenes';

const meta = {
  dt: 1,
  seed: 4,
  scene: 'cvs-multi-object',
  geometry: pushGeometryOf(referenceScene('cvs-multi-object')),
  sampling: { maxSpeed: 0.1 },
  sliderCounts: { '1': 1, '2': 1, '3': 0, '4': 0 },
  contact: { count: 1, ratio: 0.5 },
  createdAt: '2026-01-01T00:00:00Z',
  generationSeconds: 1,
  command: 'npx parapush learn generate --out x',
};

function records(): Float32Array {
  const r = new Float32Array(2 * RECORD_FLOATS);
  for (let k = 0; k < r.length; k++) r[k] = Math.fround(Math.sin(k) * 0.3);
  r[0] = 1;
  r[RECORD_FLOATS] = 2;
  return r;
}

describe('transition data set', () => {
  it('writes and reads back the same records, little-endian, with a manifest', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-ds-'));
    const written = writeDataset(dir, records(), meta);
    expect(written.count).toBe(2);
    const ds = readDataset(dir);
    expect(Array.from(ds.records)).toEqual(Array.from(records()));
    const r1 = recordAt(ds.records, 1);
    expect(r1.sliders).toBe(2);
    expect(r1.start).toHaveLength(paddedLayout.size);
    expect(r1.end[0]).toBe(records()[RECORD_FLOATS + 3 + paddedLayout.size]);
  });

  it('rejects a data file that does not match its manifest', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-ds-'));
    writeDataset(dir, records(), meta);
    const changed = new Float32Array(records());
    changed[5] = 42;
    writeFileSync(path.join(dir, DATA_FILE), new Uint8Array(changed.buffer));
    expect(() => readDataset(dir)).toThrow(/checksum/);
    writeFileSync(path.join(dir, DATA_FILE), new Uint8Array(10));
    expect(() => readDataset(dir)).toThrow(DatasetError);
  });
});
