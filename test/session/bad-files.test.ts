import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { McapWriter } from '@mcap/core';
import { afterAll, describe, expect, it } from 'vitest';
import { FileWritable } from '../../src-main/session/mcap-file';
import { SessionLog, SessionLogError, listSessions } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { recoverSessionFile } from '../../src-main/session/recovery';
import { recordEveryChannel } from './sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-badlogs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function goodLog(): Promise<string> {
  const rec = await SessionRecorder.create({ dir, label: 'good', origin: 'test' });
  recordEveryChannel(rec);
  await rec.close();
  return rec.file;
}

describe('truncated, empty and foreign files', () => {
  it('an empty file', async () => {
    const file = path.join(dir, 'empty.mcap');
    writeFileSync(file, '');
    await expect(SessionLog.open(file)).rejects.toThrow(SessionLogError);
    await expect(SessionLog.open(file)).rejects.toThrow(/empty file \(0 bytes\)/);
    await expect(recoverSessionFile(file)).rejects.toThrow(/empty file/);
  });

  it('a file that is not MCAP', async () => {
    const file = path.join(dir, 'notes.mcap');
    writeFileSync(file, '{"this": "is JSON"}\n');
    await expect(SessionLog.open(file)).rejects.toThrow(/not an MCAP file/);
    await expect(recoverSessionFile(file)).rejects.toThrow(/not an MCAP file/);
  });

  it('an MCAP file from another program', async () => {
    const file = path.join(dir, 'ros.mcap');
    const handle = await open(file, 'w');
    const w = new McapWriter({ writable: new FileWritable(handle) });
    await w.start({ profile: 'ros2', library: 'other' });
    const ch = await w.registerChannel({
      schemaId: 0,
      topic: '/tf',
      messageEncoding: 'json',
      metadata: new Map(),
    });
    await w.addMessage({
      channelId: ch,
      sequence: 0,
      logTime: 1n,
      publishTime: 1n,
      data: new Uint8Array([123, 125]),
    });
    await w.end();
    await handle.close();
    await expect(SessionLog.open(file)).rejects.toThrow(/not a Parapush session log.*\/tf/);
  });

  it('a complete log cut in the middle', async () => {
    const bytes = readFileSync(await goodLog());
    const file = path.join(dir, 'cut.mcap');
    writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(SessionLog.open(file)).rejects.toThrow(/cut short or damaged.*parapush log recover/);
    const listing = await listSessions(dir);
    expect(listing.find((s) => s.file === 'cut.mcap')).toMatchObject({ state: 'needs-recovery' });
    expect(listing.find((s) => s.file === 'empty.mcap')).toMatchObject({ state: 'unreadable' });
  });

  it('a message that breaks its channel schema is reported with its topic', async () => {
    const file = path.join(dir, 'forged.mcap');
    const handle = await open(file, 'w');
    const w = new McapWriter({ writable: new FileWritable(handle) });
    await w.start({ profile: 'parapush-session', library: 'forged' });
    const info = await w.registerChannel({
      schemaId: 0,
      topic: '/session/info',
      messageEncoding: 'json',
      metadata: new Map(),
    });
    const robot = await w.registerChannel({
      schemaId: 0,
      topic: '/robot/state',
      messageEncoding: 'json',
      metadata: new Map(),
    });
    const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    await w.addMessage({
      channelId: info,
      sequence: 0,
      logTime: 1n,
      publishTime: 1n,
      data: json({ mono: 0 }),
    });
    await w.addMessage({
      channelId: robot,
      sequence: 0,
      logTime: 2n,
      publishTime: 2n,
      data: json({ mono: 0, wall: 0 }),
    });
    await w.end();
    await handle.close();
    const log = await SessionLog.open(file);
    const read = async () => {
      for await (const _ of log.messages(['/robot/state'])) void _;
    };
    await expect(read()).rejects.toThrow(/\/robot\/state message 0: .*timestamp/);
    await log.close();
  });
});
