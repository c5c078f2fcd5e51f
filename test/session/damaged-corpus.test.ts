/**
 * A corpus of damaged session logs, made here from a sound one (issue 47, item 6): cuts at many
 * points, bad chunk CRCs, lengths up to 2^64 - 1 in records and indexes, zstd- and lz4-labelled
 * chunks, a stored summary that is not JSON, random byte flips. Every consumer (log info, log
 * export, playback, log serve, the Sessions list, recovery) either reads the file or answers with
 * one line that names the file: no crash, no stack trace, no hang, and no log listed complete that
 * then fails to open.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { McapWriter } from '@mcap/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportCsv } from '../../src-main/session/csv-export';
import type { FoxgloveLive } from '../../src-main/session/foxglove-live';
import { serveRecordedSession } from '../../src-main/session/foxglove-playback';
import { FileWritable } from '../../src-main/session/mcap-file';
import { mocapHealthOf } from '../../src-main/session/mocap-health';
import { loadRecordedRun } from '../../src-main/session/playback';
import { listSessions, SessionLog, SessionLogError } from '../../src-main/session/reader';
import { recoverSessionFile } from '../../src-main/session/recovery';
import { SUMMARY_METADATA_NAME } from '../../src-main/session/session-summary';
import { streamGapsOf } from '../../src-main/session/stream-gaps';
import { Rng } from '../../src-main/common/rng';
import { repoRoot } from '../helpers/scenes';
import { recordSpans, sessionLogBytes } from './damaged-logs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-corpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  name: string;
  bytes: Uint8Array;
}

const cases: Case[] = [];
const OP = { chunk: 6, chunkIndex: 8, metadata: 12, footer: 2 };

/** A copy of `bytes` with `edit` applied to it. */
function edited(bytes: Uint8Array, edit: (b: Uint8Array, view: DataView) => void): Uint8Array {
  const copy = Uint8Array.from(bytes);
  edit(copy, new DataView(copy.buffer));
  return copy;
}

/**
 * The messages of a sound log written again by the MCAP writer, its chunks labelled as compressed
 * with `compression` (the data stays as it is: a reader that knows no such compression must say
 * so, not crash), or with `summary` stored as its summary.
 */
async function rewritten(
  source: Uint8Array,
  o: { compression?: string; summary?: string },
): Promise<Uint8Array> {
  const name = o.compression ?? 'summary';
  const file = path.join(dir, `rewritten-${name}.tmp`);
  const handle = await open(file, 'w');
  const compression = o.compression;
  const w = new McapWriter({
    writable: new FileWritable(handle),
    ...(compression ? { compressChunk: (data: Uint8Array) => ({ compression, compressedData: data }) } : {}),
  });
  await w.start({ profile: 'parapush-session', library: 'corpus' });
  const reader = await SessionLog.open(await writeTemp(`source-of-${name}`, source));
  const ids = new Map<string, number>();
  for await (const m of reader.messages()) {
    let id = ids.get(m.topic);
    if (id === undefined) {
      id = await w.registerChannel({
        schemaId: 0,
        topic: m.topic,
        messageEncoding: 'json',
        metadata: new Map(),
      });
      ids.set(m.topic, id);
    }
    const data = new TextEncoder().encode(JSON.stringify(m.message));
    await w.addMessage({ channelId: id, sequence: 0, logTime: m.logTime, publishTime: m.logTime, data });
  }
  await reader.close();
  if (o.summary !== undefined)
    await w.addMetadata({ name: SUMMARY_METADATA_NAME, metadata: new Map([['summary', o.summary]]) });
  await w.end();
  await handle.close();
  return readFileSync(file);
}

async function writeTemp(name: string, bytes: Uint8Array): Promise<string> {
  const file = path.join(dir, `${name}.mcap`);
  writeFileSync(file, bytes);
  return file;
}

beforeAll(async () => {
  const { live, finalized } = await sessionLogBytes(path.join(dir, 'source'), 3000);
  const spans = recordSpans(finalized);
  const size = finalized.byteLength;
  // Cuts: 60 points through the finalized log, 20 through the live one, and either side of every
  // record boundary of the first ten records.
  for (let i = 1; i <= 60; i++) {
    const at = Math.round((size * i) / 61);
    cases.push({ name: `cut-final-${at}`, bytes: finalized.subarray(0, at) });
  }
  for (let i = 1; i <= 20; i++) {
    const at = Math.round((live.byteLength * i) / 21);
    cases.push({ name: `cut-live-${at}`, bytes: live.subarray(0, at) });
  }
  for (const s of spans.slice(0, 10))
    for (const at of [s.start + 1, s.end - 1])
      cases.push({ name: `cut-record-${at}`, bytes: finalized.subarray(0, at) });
  // Bad CRCs: one byte of each chunk's records changed, at three places.
  const chunks = spans.filter((s) => s.op === OP.chunk);
  for (const [k, c] of chunks.entries())
    for (const f of [0.2, 0.5, 0.9]) {
      const at = Math.round(c.start + (c.end - c.start) * f);
      cases.push({
        name: `crc-chunk${k}-${at}`,
        bytes: edited(finalized, (b) => void (b[at] = b[at]! ^ 0x5a)),
      });
    }
  // Huge lengths: every record of the data section's first part and of the summary section.
  const huge = [2n ** 64n - 1n, 2n ** 53n + 1n, 2n ** 32n];
  for (const s of [...spans.slice(0, 6), ...spans.slice(-6)])
    for (const n of huge)
      cases.push({
        name: `length-${s.op}-${s.start}-${n}`,
        bytes: edited(finalized, (_, v) => v.setBigUint64(s.start + 1, n, true)),
      });
  // Indexes naming what is not there: a chunk index's offset and length, the footer's offsets.
  for (const s of spans.filter((r) => r.op === OP.chunkIndex).slice(0, 2))
    for (const [field, n] of [
      [16, 2n ** 64n - 1n],
      [24, 2n ** 64n - 1n],
      [24, 2n ** 40n],
      [16, BigInt(size) - 4n],
    ] as const)
      cases.push({
        name: `chunk-index-${s.start}-${field}-${n}`,
        bytes: edited(finalized, (_, v) => v.setBigUint64(s.start + 9 + field, n, true)),
      });
  const footer = spans.find((s) => s.op === OP.footer)!;
  for (const [field, n] of [
    [0, 2n ** 64n - 1n],
    [0, BigInt(size) - 10n],
    [8, 2n ** 64n - 1n],
    [16, 0xdeadbeefn],
  ] as const)
    cases.push({
      name: `footer-${field}-${n}`,
      bytes: edited(finalized, (_, v) =>
        field === 16
          ? v.setUint32(footer.start + 9 + field, Number(n), true)
          : v.setBigUint64(footer.start + 9 + field, n, true),
      ),
    });
  // Chunks compressed in ways this reader does not decompress.
  cases.push({ name: 'zstd-chunks', bytes: await rewritten(finalized, { compression: 'zstd' }) });
  cases.push({ name: 'lz4-chunks', bytes: await rewritten(finalized, { compression: 'lz4' }) });
  // Stored summaries that are not JSON, or not a summary.
  cases.push({
    name: 'summary-not-json',
    bytes: await rewritten(finalized, { summary: '{"sessionId": nul' }),
  });
  cases.push({
    name: 'summary-wrong-shape',
    bytes: await rewritten(finalized, { summary: '{"sessionId": 3}' }),
  });
  cases.push({ name: 'summary-empty', bytes: await rewritten(finalized, { summary: '' }) });
  // Random byte flips, fixed seed.
  const rng = new Rng(47);
  for (let i = 0; i < 30; i++) {
    const at = 8 + Math.floor(rng.uniform() * (size - 16));
    cases.push({ name: `flip-${at}`, bytes: edited(finalized, (b) => void (b[at] = b[at]! ^ 0xff)) });
  }
}, 60_000);

type Outcome = { ok: true } | { ok: false; message: string };

/** Runs a consumer; a SessionLogError is its clear answer, anything else fails the test. */
async function consume(work: () => Promise<unknown>): Promise<Outcome> {
  try {
    await work();
    return { ok: true };
  } catch (err) {
    if (!(err instanceof SessionLogError)) throw err;
    return { ok: false, message: err.message };
  }
}

/** What `log info` does. */
async function info(file: string): Promise<void> {
  const log = await SessionLog.open(file);
  try {
    await log.verify();
    await log.summary();
    log.channelCounts();
    await mocapHealthOf(log);
    await streamGapsOf(log);
  } finally {
    await log.close();
  }
}

/** The console's playback: summary and every event of the run. */
async function playback(file: string): Promise<void> {
  const log = await SessionLog.open(file);
  try {
    await log.summary();
    await loadRecordedRun(log);
  } finally {
    await log.close();
  }
}

/** `log serve`, to a server that takes every message, as fast as it can. */
async function serve(file: string): Promise<void> {
  const log = await SessionLog.open(file);
  try {
    await log.verify();
    const live = { tap: () => undefined } as unknown as FoxgloveLive;
    await serveRecordedSession(log, live, { speed: 1e12 });
  } finally {
    await log.close();
  }
}

describe('a corpus of damaged logs through every consumer', () => {
  it('has the ~178 cases of the audit', () => {
    expect(cases.length).toBeGreaterThanOrEqual(170);
  });

  it('gives one clear line for each, never a crash, and lists nothing complete that fails', async () => {
    const failures: Record<string, number> = {};
    for (const c of cases) {
      const folder = path.join(dir, 'corpus', c.name);
      mkdirSync(folder, { recursive: true });
      const file = path.join(folder, `${c.name}.mcap`);
      writeFileSync(file, c.bytes);
      const outcomes: Record<string, Outcome> = {
        info: await consume(() => info(file)),
        export: await consume(() => exportCsv(file, path.join(folder, 'csv'))),
        playback: await consume(() => playback(file)),
        serve: await consume(() => serve(file)),
      };
      for (const [consumer, o] of Object.entries(outcomes)) {
        if (o.ok) continue;
        failures[consumer] = (failures[consumer] ?? 0) + 1;
        expect(o.message, `${c.name} ${consumer}`).not.toMatch(/\n/);
        expect(o.message, `${c.name} ${consumer}`).toContain(file);
      }
      const [listing] = await listSessions(folder);
      expect(listing!.file).toBe(`${c.name}.mcap`);
      if (listing!.state === 'complete') {
        // Listed complete: then it opens and reads in every consumer.
        for (const [consumer, o] of Object.entries(outcomes))
          expect(o, `${c.name} ${consumer}`).toEqual({ ok: true });
      } else {
        expect(listing!.problem, c.name).toContain(file);
        expect(listing!.problem, c.name).not.toMatch(/\n/);
        expect(['needs-recovery', 'unreadable']).toContain(listing!.state);
      }
      // Recovery either makes a log every consumer reads, or says in one line why it cannot.
      let kept = 0;
      const recovered = await consume(async () => {
        const r = await recoverSessionFile(file);
        if (r.action === 'recovered') kept = r.messages;
      });
      if (recovered.ok && kept > 0) {
        for (const read of [info, playback])
          expect(await consume(() => read(file)), c.name).toEqual({ ok: true });
      } else if (!recovered.ok) {
        expect(recovered.message, c.name).not.toMatch(/\n/);
      }
    }
    // Most of the corpus is damage a reader must name.
    expect(failures['info']).toBeGreaterThan(cases.length / 2);
  }, 240_000);
});

describe('the command line on damaged logs', () => {
  const run = promisify(execFile);
  async function cli(...args: string[]) {
    try {
      await run(process.execPath, [path.join(repoRoot, 'bin/parapush.mjs'), 'log', ...args]);
      return { code: 0, stderr: '' };
    } catch (err) {
      return err as { code: number; stderr: string };
    }
  }

  it.each([
    ['crc', 'info'],
    ['length', 'export'],
    ['zstd', 'info'],
    ['summary-not-json', 'info'],
  ])(
    'a %s case through log %s: one line, exit code 2',
    async (kind, command) => {
      const c = cases.find((k) => k.name.startsWith(kind))!;
      const file = await writeTemp(`cli-${c.name}`, c.bytes);
      const r = await cli(
        command,
        file,
        ...(command === 'export' ? ['--out', path.join(dir, 'cli-csv')] : []),
      );
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`^parapush: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      expect(r.stderr).not.toMatch(/\bat .*\.(ts|js|mjs):\d+/);
    },
    60_000,
  );
});
