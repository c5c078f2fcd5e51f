/**
 * A run's motion-capture health from its log: the stream counters recorded on /mocap/stats, the
 * last minus the first (what the run saw, not what the lab link counted before it), as
 * `parapush log info` shows them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeMocapHealth, mocapHealthOf } from '../../src-main/session/mocap-health';
import { SessionLog } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { mocapStats } from './sample-messages';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function logWith(record: (r: SessionRecorder) => void): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-mocap-health-'));
  dirs.push(dir);
  const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
  record(rec);
  await rec.close();
  return rec.file;
}

async function healthOf(file: string) {
  const log = await SessionLog.open(file);
  try {
    return await mocapHealthOf(log);
  } finally {
    await log.close();
  }
}

describe("a run's motion-capture health", () => {
  it('counts what happened between the first and the last counters of the log', async () => {
    const file = await logWith((r) => {
      r.mocapStats(mocapStats);
      r.mocapStats({ ...mocapStats, frames: 1560, olderFrames: 70, droppedFrames: 14 });
      r.mocapStats({ ...mocapStats, frames: 1800, olderFrames: 131, droppedFrames: 45, restarts: 2 });
    });
    const health = await healthOf(file);
    expect(health).toEqual({
      frames: 360,
      droppedFrames: 33,
      olderFrames: 70,
      repeatedFrames: 0,
      restarts: 1,
      decodeErrors: 0,
      foreignPackets: 0,
      unconfirmedFrames: 0,
      spoofSigns: 0,
    });
    expect(describeMocapHealth(health!)).toBe(
      '360 frames, 33 dropped, 70 out of order, 0 repeated, 1 restart(s), 0 bad packet(s)',
    );
  });

  it('is null for a log without stream counters (a run without a lab)', async () => {
    const file = await logWith((r) => r.operator('run.start', 'experiment'));
    expect(await healthOf(file)).toBeNull();
  });
});
