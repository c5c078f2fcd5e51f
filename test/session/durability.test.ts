/**
 * Session log durability (issue 16): short writes are completed, not dropped; a lock whose pid was
 * recycled by another live process does not keep a crashed log from being recovered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileWritable, writeFully } from '../../src-main/session/mcap-file';
import type { LiveMcapFile } from '../../src-main/session/live-writer';
import { SessionRecorder } from '../../src-main/session/recorder';
import { recoverSessionFile } from '../../src-main/session/recovery';
import { lockFileOf } from '../../src-main/session/sessions-dir';
import { isBeingRecorded, processStartOf } from '../../src-main/session/session-lock';
import { recordEveryChannel } from './sample-messages';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'parapush-durable-'));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A file handle that takes at most `chunk` bytes per write, as a disk under pressure may. */
function stingyHandle(chunk: number): { handle: FileHandle; written: number[] } {
  const written: number[] = [];
  const handle = {
    write: async (buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset) => {
      const n = Math.min(chunk, length);
      written.push(...buffer.subarray(offset, offset + n));
      return { bytesWritten: n, buffer };
    },
  } as unknown as FileHandle;
  return { handle, written };
}

describe('short writes', () => {
  it('the MCAP writer writes every byte when each write takes only part of them', async () => {
    const { handle, written } = stingyHandle(3);
    const w = new FileWritable(handle);
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
    await w.write(bytes);
    expect(Uint8Array.from(written)).toEqual(bytes);
    expect(w.position()).toBe(1000n);
  });

  it('a write that makes no progress is an error, not a hang', async () => {
    const { handle } = stingyHandle(0);
    await expect(writeFully(handle, new Uint8Array(10))).rejects.toThrow(/no progress after 0 of 10 bytes/);
  });
});

describe('lock files', () => {
  function liveStranger(): ChildProcess {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    cleanup.push(() => child.kill('SIGKILL'));
    return child;
  }

  /** A recording whose process "died": its file is closed, its lock left behind. */
  async function abandonedRecording(): Promise<string> {
    const rec = await SessionRecorder.create({ dir: tempDir(), label: 'dry', origin: 'test' });
    recordEveryChannel(rec);
    await (rec as unknown as { live: LiveMcapFile }).live.close();
    return rec.file;
  }

  it('a lock held by this live process is respected', async () => {
    const file = await abandonedRecording();
    expect(await isBeingRecorded(file)).toBe(true);
    expect((await recoverSessionFile(file)).action).toBe('still-recording');
  });

  it('a lock whose pid now belongs to another live process does not block recovery', async () => {
    const file = await abandonedRecording();
    const stranger = liveStranger();
    await new Promise((r) => stranger.once('spawn', r));
    // The system gave the dead recorder's pid to an unrelated process.
    const lock = lockFileOf(file);
    writeFileSync(lock, readFileSync(lock, 'utf8').replace(String(process.pid), String(stranger.pid)));
    expect(await isBeingRecorded(file)).toBe(false);
    const r = await recoverSessionFile(file);
    expect(r.action).toBe('recovered');
  });

  it('reads a start time for a live process and none for a dead one', () => {
    if (process.platform === 'win32') return;
    expect(processStartOf(process.pid)).toEqual(expect.any(String));
    expect(processStartOf(2 ** 22 + 12345)).toBeNull();
  });
});
