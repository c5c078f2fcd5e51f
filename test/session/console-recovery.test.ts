/**
 * The console recovers a log only when the operator confirms it (issue 47, item 5): at start it
 * names the logs that need recovery and changes none; `sessions.recover` without confirm is
 * refused; with it the log is rewritten, what was lost is said, and a damaged original is kept.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { ConsoleCore } from '../../src-main/console/console-core';
import { repoRoot } from '../helpers/scenes';
import { recordSpans, sessionLogBytes } from './damaged-logs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-console-recovery-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const until = async (check: () => boolean) => {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('recovery in the console', () => {
  it('asks before it changes a log', async () => {
    const sessions = path.join(dir, 'sessions');
    const { live } = await sessionLogBytes(path.join(dir, 'source'), 200);
    // A bad length in the middle and a torn end: more than a torn tail is lost.
    const damaged = Uint8Array.from(live.subarray(0, live.byteLength - 10));
    const middle = recordSpans(live).filter((s) => s.op === 5)[100]!;
    new DataView(damaged.buffer).setBigUint64(middle.start + 1, 2n ** 60n, true);
    const name = '2024-01-01T00-00-00-000Z_dry.mcap';
    const file = path.join(sessions, name);
    mkdirSync(sessions, { recursive: true });
    writeFileSync(file, damaged);

    const core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      sessionsDir: sessions,
    });
    const events: ConsoleEvent[] = [];
    core.subscribe((e) => events.push(e));
    await until(() => events.some((e) => e.type === 'log' && /need(s)? recovery/.test(e.message)));
    const told = events.find((e) => e.type === 'log' && /recovery/.test(e.message));
    expect(told).toMatchObject({ level: 'warn' });
    expect((told as { message: string }).message).toContain(name);
    // Started, told, and nothing changed.
    expect(Buffer.compare(readFileSync(file), Buffer.from(damaged))).toBe(0);
    const list = await core.handle({ type: 'sessions.list' });
    expect(list).toMatchObject({ ok: true, result: { sessions: [{ file: name, state: 'needs-recovery' }] } });

    const refused = await core.handle({ type: 'sessions.recover', file: name, confirm: false });
    expect(refused).toMatchObject({
      ok: false,
      error: expect.stringMatching(/needs the operator to confirm/),
    });
    expect(Buffer.compare(readFileSync(file), Buffer.from(damaged))).toBe(0);

    const done = await core.handle({ type: 'sessions.recover', file: name, confirm: true });
    expect(done).toMatchObject({
      ok: true,
      result: {
        messages: expect.any(Number),
        lost: expect.stringMatching(
          /^lost 1 message in 1 damaged range .*record length \d+ runs past the end of the file/,
        ),
        damagedCopy: `${name}.damaged`,
      },
    });
    expect(
      readdirSync(sessions)
        .filter((f) => f.includes('.mcap'))
        .sort(),
    ).toEqual([name, `${name}.damaged`]);
    expect(Buffer.compare(readFileSync(`${file}.damaged`), Buffer.from(damaged))).toBe(0);
    const after = await core.handle({ type: 'sessions.list' });
    expect(after).toMatchObject({ ok: true, result: { sessions: [{ file: name, state: 'complete' }] } });
    core.dispose();
  });
});
