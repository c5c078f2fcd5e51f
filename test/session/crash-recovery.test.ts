import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampedTopics } from '../../src-main/session/channels';
import { SessionLog, SessionLogError, listSessions } from '../../src-main/session/reader';
import { recoverSessionFile, recoverSessionsDir } from '../../src-main/session/recovery';
import { lockFileOf } from '../../src-main/session/sessions-dir';
import { repoRoot } from '../helpers/scenes';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the recording child, lets it record for `ms`, kills it with SIGKILL; returns when. */
async function recordAndKill(ms: number): Promise<{ file: string; killedAt: number }> {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/session/crash-child.ts'), dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const file = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /recording (.+\.mcap)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
  });
  await new Promise((r) => setTimeout(r, ms));
  const killedAt = Date.now();
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
  return { file, killedAt };
}

describe('crash recovery', () => {
  it('a recording killed with SIGKILL is recovered to a valid log missing at most the last second', async () => {
    const { file, killedAt } = await recordAndKill(2500);

    // Cut short: not readable as it is, with a message that says what to do.
    await expect(SessionLog.open(file)).rejects.toThrow(/cut short.*parapush log recover/);
    // The dead child's lock is stale: the console lists the log as needing recovery.
    expect((await listSessions(dir)).find((s) => file.endsWith(s.file))?.state).toBe('needs-recovery');

    const results = await recoverSessionsDir(dir);
    expect(results).toEqual([expect.objectContaining({ file, action: 'recovered' })]);
    expect(existsSync(lockFileOf(file))).toBe(false);

    const log = await SessionLog.open(file);
    let last = 0;
    let robot = 0;
    for await (const m of log.messages(stampedTopics)) {
      last = Math.max(last, m.message.wall);
      if (m.topic === '/robot/state') robot++;
    }
    const summary = await log.summary();
    await log.close();
    // Wall stamps are s since the epoch.
    expect(killedAt / 1000 - last).toBeLessThanOrEqual(1);
    expect(killedAt / 1000 - last).toBeGreaterThanOrEqual(0);
    // About 2 s of 500 Hz robot state made it (generous bounds: this is not a timing test).
    expect(robot).toBeGreaterThan(500);
    expect(summary).toMatchObject({ recovered: true, outcome: 'interrupted', mode: 'dry' });
    expect(summary.messageCounts['/robot/state']).toBe(robot);

    // Recovering again changes nothing.
    expect(await recoverSessionFile(file)).toEqual({ file, action: 'already-complete' });
  });

  it('gives a clear error for a log with nothing recoverable', async () => {
    const { writeFileSync } = await import('node:fs');
    const torn = path.join(dir, 'torn.mcap');
    writeFileSync(torn, Buffer.from([0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a, 0x01, 0x20]));
    await expect(recoverSessionFile(torn)).rejects.toThrow(SessionLogError);
    await expect(recoverSessionFile(torn)).rejects.toThrow(/no complete MCAP header/);
  });
});
