/**
 * Recovery loses only what is lost (issue 47, item 5): one bad record length in a cut-short log
 * costs that record, not everything after it; the original is kept as FILE.damaged whenever more
 * than a torn last record is lost, and the result says what was lost.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeLoss } from '../../src-main/session/finalize';
import { SessionLog } from '../../src-main/session/reader';
import { recoverSessionFile } from '../../src-main/session/recovery';
import { recordSpans, sessionLogBytes, type RecordSpan } from './damaged-logs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-resync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MESSAGE = 5;
let live: Uint8Array;
let spans: RecordSpan[];
let total: number;

beforeAll(async () => {
  ({ live } = await sessionLogBytes(path.join(dir, 'source'), 4000));
  spans = recordSpans(live);
  total = spans.filter((s) => s.op === MESSAGE).length;
});

/** Writes `bytes` as NAME.mcap and recovers it. */
async function recover(name: string, bytes: Uint8Array) {
  const file = path.join(dir, `${name}.mcap`);
  writeFileSync(file, bytes);
  const r = await recoverSessionFile(file);
  if (r.action !== 'recovered') throw new Error(`not recovered: ${r.action}`);
  return { file, r };
}

/** Messages a finalized log holds, read back through the reader. */
async function messagesIn(file: string): Promise<number> {
  const log = await SessionLog.open(file);
  try {
    return log.channelCounts().reduce((sum, c) => sum + c.messages, 0);
  } finally {
    await log.close();
  }
}

/** A copy of the live log with the length of the message record nearest `fraction` of the file changed. */
function withBadLength(fraction: number, change: (length: bigint) => bigint) {
  const bytes = Uint8Array.from(live);
  const target = spans.find((s) => s.op === MESSAGE && s.start >= live.byteLength * fraction)!;
  const view = new DataView(bytes.buffer);
  view.setBigUint64(target.start + 1, change(view.getBigUint64(target.start + 1, true)), true);
  const after = spans.filter((s) => s.op === MESSAGE && s.start > target.start).length;
  return { bytes, target, after };
}

describe('recovery past a bad record', () => {
  it('one record length off by 3 at 10 % of a cut-short log keeps what follows, and the original', async () => {
    // Cut short as a crash leaves it: the last record torn.
    const { bytes, target, after } = withBadLength(0.1, (n) => n + 3n);
    const cut = bytes.subarray(0, bytes.byteLength - 20);
    const { file, r } = await recover('off-by-3', cut);

    const kept = await messagesIn(file);
    expect(kept).toBe(r.messages);
    const before = total - after - 1;
    // Every message before the bad one, and at least 95 % of those after it (all but the torn last one).
    expect(kept - before).toBeGreaterThanOrEqual(Math.ceil(0.95 * after));
    expect(kept).toBe(total - 2);
    expect(r.lost.ranges).toEqual([
      { start: target.start, end: target.end, reason: expect.stringMatching(/wrong length|does not end/) },
    ]);
    expect(r.lost.messages).toBe(1);
    expect(r.lost.tornTailBytes).toBeGreaterThan(0);
    expect(describeLoss(r.lost)).toMatch(
      new RegExp(
        `^lost 1 message in 1 damaged range of ${target.end - target.start} bytes: bytes ${target.start}-${target.end} .*; and \\d+ bytes of a torn last record$`,
      ),
    );
    // The original, untouched, beside the recovered log.
    expect(r.damagedCopy).toBe(`${file}.damaged`);
    expect(Buffer.compare(readFileSync(`${file}.damaged`), Buffer.from(cut))).toBe(0);
  });

  it('a length of 2^64-1 in the middle loses one record', async () => {
    const { bytes, after } = withBadLength(0.5, () => 2n ** 64n - 1n);
    const { file, r } = await recover('huge-length', bytes);
    expect(await messagesIn(file)).toBe(total - 1);
    expect(r.lost.ranges).toHaveLength(1);
    expect(r.lost.ranges[0]!.reason).toMatch(/runs past the end of the file/);
    expect(r.lost.messages).toBe(1);
    expect(after).toBeGreaterThan(1000);
    expect(existsSync(`${file}.damaged`)).toBe(true);
  });

  it('a log cut short by a crash loses its torn last record only, and keeps no copy', async () => {
    const lastMessage = spans.filter((s) => s.op === MESSAGE).at(-1)!;
    const { file, r } = await recover('torn', live.subarray(0, lastMessage.start + 30));
    expect(await messagesIn(file)).toBe(total - 1);
    expect(r.lost).toEqual({ ranges: [], tornTailBytes: 30, bytes: 30, messages: 0 });
    expect(r.damagedCopy).toBeNull();
    expect(existsSync(`${file}.damaged`)).toBe(false);
    expect(describeLoss(r.lost)).toBe('lost 30 bytes of a torn last record');
  });

  it('zeros after the last record (a power cut) lose nothing', async () => {
    const padded = new Uint8Array(live.byteLength + 4096);
    padded.set(live);
    const { file, r } = await recover('zero-fill', padded);
    expect(await messagesIn(file)).toBe(total);
    expect(r.lost.ranges).toEqual([]);
    expect(r.damagedCopy).toBeNull();
  });

  it('garbage over a stretch of records loses those records only', async () => {
    const bytes = Uint8Array.from(live);
    const messages = spans.filter((s) => s.op === MESSAGE);
    const from = messages[1000]!.start;
    const to = messages[1010]!.end;
    for (let i = from; i < to; i++) bytes[i] = (i * 37) & 0xff;
    const { file, r } = await recover('garbage', bytes);
    const kept = await messagesIn(file);
    expect(kept).toBeGreaterThanOrEqual(total - 12);
    expect(kept).toBeLessThanOrEqual(total - 11);
    expect(r.lost.messages).toBe(total - kept);
    expect(r.damagedCopy).not.toBeNull();
  });
});
