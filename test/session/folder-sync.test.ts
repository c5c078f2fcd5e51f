/**
 * A session log's folder is fsync'd after the log is created and after the final rename (issue
 * 16): without it a power cut can lose the new file's name, or bring back the old name of a
 * finalized log. Every open() is watched to see the folder synced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const events: string[] = [];

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof fs.open = async (file, ...rest) => {
    const handle = await fs.open(file, ...rest);
    const name = String(file);
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      if ((await handle.stat()).isDirectory()) events.push(`sync-dir ${name}`);
      return sync();
    };
    return handle;
  };
  const rename: typeof fs.rename = async (from, to) => {
    await fs.rename(from, to);
    events.push(`rename ${String(to)}`);
  };
  return { ...fs, default: { ...fs, open, rename }, open, rename };
});

const { SessionRecorder } = await import('../../src-main/session/recorder');
const { recordEveryChannel } = await import('./sample-messages');

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-sync-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('session folder sync', () => {
  it('syncs the folder after creating the log and after the final rename', async () => {
    const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
    expect(events).toContain(`sync-dir ${dir}`);
    events.length = 0;
    recordEveryChannel(rec);
    await rec.close();
    const renamed = events.indexOf(`rename ${rec.file}`);
    expect(renamed, events.join('\n')).toBeGreaterThanOrEqual(0);
    expect(events.slice(renamed + 1)).toContain(`sync-dir ${dir}`);
  });
});
