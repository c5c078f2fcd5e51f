import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { topics } from '../../src-main/session/channels';
import { SessionLog, listSessions } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { lockFileOf } from '../../src-main/session/sessions-dir';
import {
  decision,
  mocapFrame,
  plannerStep,
  planarPoses,
  recordEveryChannel,
  robotState,
  sampleScene,
  sampleSettings,
  stateEvent,
} from './sample-messages';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'parapush-session-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('session log round trip', () => {
  it('writes every channel and reads each message back as it was recorded', async () => {
    const rec = await SessionRecorder.create({ dir: tempDir(), label: 'dry', origin: 'test' });
    expect(existsSync(lockFileOf(rec.file))).toBe(true);
    recordEveryChannel(rec);
    const summary = await rec.close();
    expect(existsSync(lockFileOf(rec.file))).toBe(false);

    const log = await SessionLog.open(rec.file);
    const got = [];
    for await (const m of log.messages()) got.push(m);
    await log.close();

    // Every channel holds exactly the one message recorded on it.
    expect(new Set(got.map((m) => m.topic))).toEqual(new Set(topics));
    const by = Object.fromEntries(got.map((m) => [m.topic, m.message])) as Record<
      string,
      Record<string, unknown>
    >;
    expect(by['/session/info']).toMatchObject({ sessionId: rec.sessionId, origin: 'test' });
    expect(by['/session/settings']).toMatchObject({
      mode: 'dry',
      scene: sampleScene,
      settings: sampleSettings,
    });
    expect(by['/mocap/frame']).toMatchObject(mocapFrame(7, 0.5));
    expect(by['/mocap/poses']).toMatchObject(planarPoses(7, 0.5));
    expect(by['/robot/state']).toMatchObject(robotState(0.5) as unknown as Record<string, unknown>);
    expect(by['/robot/command']).toMatchObject({
      kind: 'twist',
      sequence: 42,
      vx: 0.02,
      vy: -0.01,
      acceleration: 0.5,
    });
    expect(by['/supervisor/decision']).toMatchObject(decision);
    expect(by['/supervisor/event']).toMatchObject({ event: { type: 'supervisor', decision: 'limit' } });
    expect(by['/scene/state']).toMatchObject({ event: stateEvent(0.5) });
    expect(by['/planner/step']).toMatchObject({ event: { type: 'planner-step', step: plannerStep(0, 0.5) } });
    expect(by['/operator/action']).toMatchObject({ action: 'run.start' });
    expect(by['/console/log']).toMatchObject({ event: { type: 'log', message: 'limited' } });
    expect(by['/run/status']).toMatchObject({ event: { type: 'run', status: { phase: 'finished' } } });
    expect(by['/run/outcome']).toMatchObject({ outcome: 'success', detail: null });

    // Timestamps: monotonic and wall clock on every message, in log-time order.
    for (let i = 1; i < got.length; i++) {
      expect(got[i]!.logTime >= got[i - 1]!.logTime).toBe(true);
      expect(got[i]!.message.mono).toBeGreaterThanOrEqual(got[i - 1]!.message.mono);
    }
    const now = Date.now();
    for (const m of got) expect(Math.abs(m.message.wall - now)).toBeLessThan(60_000);

    expect(summary).toMatchObject({
      sessionId: rec.sessionId,
      mode: 'dry',
      scene: sampleScene.name,
      outcome: 'success',
      recovered: false,
    });
    expect(summary.model).toMatch(/parareal|fine|coarse/);
    expect(summary.messageCounts['/robot/state']).toBe(1);
  });

  it('lists sessions with date, scene, model, outcome and duration', async () => {
    const dir = tempDir();
    const a = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
    recordEveryChannel(a);
    await a.close();
    const listing = await listSessions(dir);
    expect(listing).toHaveLength(1);
    expect(listing[0]).toMatchObject({ file: path.basename(a.file), state: 'complete', problem: null });
    const s = listing[0]!.summary!;
    expect(s.startedAt).toBeGreaterThan(Date.now() - 60_000);
    expect(s.scene).toBe(sampleScene.name);
    expect(s.outcome).toBe('success');
    expect(s.duration).toBeGreaterThanOrEqual(0);
  });

  it('reports a log still being recorded as such', async () => {
    const dir = tempDir();
    const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
    rec.robotState(robotState(0));
    const listing = await listSessions(dir);
    expect(listing[0]!.state).toBe('recording');
    await rec.close();
    expect((await listSessions(dir))[0]!.state).toBe('complete');
  });
});
