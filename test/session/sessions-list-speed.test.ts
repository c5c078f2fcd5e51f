/**
 * The Sessions list on a big log without a stored summary (issue 47, item 10: 158 MB, 1 M
 * messages took 11.6 s on every listing). The log is read through once, by a sequential scan,
 * and the listing kept in the folder's cache; every later listing reads a few hundred bytes.
 * Measured here on a generated log of 300 k messages: the indexed reader's summary (the old
 * path), the first listing, a listing from the cache.
 */
import { mkdtempSync, rmSync, utimesSync, existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { McapIndexedReader, McapWriter } from '@mcap/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_CACHE_FILE } from '../../src-main/session/listing-cache';
import { FileReadable, FileWritable } from '../../src-main/session/mcap-file';
import { listSessions } from '../../src-main/session/reader';
import { SummaryBuilder } from '../../src-main/session/session-summary';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-list-speed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MESSAGES = 300_000;
const name = '2024-01-01T00-00-00-000Z_big.mcap';
const file = path.join(dir, name);
const encoder = new TextEncoder();

beforeAll(async () => {
  const handle = await open(file, 'w');
  const w = new McapWriter({ writable: new FileWritable(handle), chunkSize: 512 * 1024 });
  await w.start({ profile: 'parapush-session', library: 'speed test' });
  const channel = (topic: string) =>
    w.registerChannel({ schemaId: 0, topic, messageEncoding: 'json', metadata: new Map() });
  const info = await channel('/session/info');
  const robot = await channel('/robot/state');
  const t0 = 1_700_000_000_000_000_000n;
  await w.addMessage({
    channelId: info,
    sequence: 0,
    logTime: t0,
    publishTime: t0,
    data: encoder.encode('{"mono":0,"wall":1700000000}'),
  });
  for (let i = 1; i < MESSAGES; i++) {
    const t = t0 + BigInt(i) * 2_000_000n;
    const data = encoder.encode(
      `{"mono":${i / 500},"wall":${1_700_000_000 + i / 500},"tcpPose":[${i % 7},0.1,0.02,0,3.14,0],"q":${i}}`,
    );
    await w.addMessage({ channelId: robot, sequence: i, logTime: t, publishTime: t, data });
  }
  // No session summary is stored: a log finalized by an older version, or by another program.
  await w.end();
  await handle.close();
}, 120_000);

/** Seconds `work` takes. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
}

describe('the Sessions list on a big log without a stored summary', () => {
  it('reads the log once, then lists it from the cache', async () => {
    // Before: the summary from the indexed reader's messages, as every listing computed it.
    const before = await timed(async () => {
      const handle = await open(file, 'r');
      const reader = await McapIndexedReader.Initialize({ readable: new FileReadable(handle) });
      const builder = new SummaryBuilder();
      for await (const m of reader.readMessages())
        builder.add(reader.channelsById.get(m.channelId)!.topic, m.logTime, m.data);
      await handle.close();
    });
    let listing: Awaited<ReturnType<typeof listSessions>> = [];
    const first = await timed(async () => (listing = await listSessions(dir)));
    expect(listing).toMatchObject([{ file: name, state: 'complete' }]);
    expect(listing[0]!.summary!.messageCounts).toEqual({ '/session/info': 1, '/robot/state': MESSAGES - 1 });
    expect(existsSync(path.join(dir, LISTING_CACHE_FILE))).toBe(true);

    const cached = await timed(async () => (listing = await listSessions(dir)));
    expect(listing[0]!.summary!.messageCounts['/robot/state']).toBe(MESSAGES - 1);
    process.stdout.write(
      `Sessions list, ${MESSAGES} messages, no stored summary: indexed-reader summary ${before.toFixed(2)} s, ` +
        `first listing ${first.toFixed(2)} s, cached listing ${(cached * 1000).toFixed(1)} ms\n`,
    );
    expect(cached).toBeLessThan(0.25);
    expect(cached * 10).toBeLessThan(before);

    // A changed file is read again, not taken from the cache.
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    const again = await timed(() => listSessions(dir));
    expect(again).toBeGreaterThan(cached);
  }, 180_000);
});
