import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { RunRequest, RunSink } from '../../src-main/console/run-controller';
import type { ConsoleEvent } from '#contract/console-api';
import { SessionRecorder } from '../../src-main/session/recorder';
import { WHAT_IF_UNAVAILABLE } from '../../src-main/session/what-if';
import { repoRoot } from '../helpers/scenes';
import { plannerStep, recordEveryChannel, samplePredictionError, stateEvent } from './sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-console-sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A run that publishes a few states and a planner step, then finishes. */
class ScriptedRun {
  async start(_request: RunRequest, sink: RunSink): Promise<void> {
    sink.status({ event: { type: 'run-started' }, safety: 'safe' });
    setTimeout(() => {
      for (let i = 0; i < 5; i++) sink.emit(stateEvent(i * 0.1));
      sink.emit({ type: 'planner-step', step: plannerStep(0, 0.2) });
      sink.status({ event: { type: 'end', outcome: 'finished', reason: 'goal reached' } });
      sink.ended();
    }, 20);
  }
  async arm(): Promise<void> {}
  async pause(): Promise<void> {}
  abort(): void {}
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('sessions in the console core', () => {
  it('records a run, lists it, plays it back with the same events, and says why what-if is off', async () => {
    const core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      runController: new ScriptedRun() as never,
      sessionsDir: dir,
    });
    const events: ConsoleEvent[] = [];
    core.subscribe((e) => events.push(e));
    const scenes = (await core.handle({ type: 'scene.list' })) as {
      ok: true;
      result: { scenes: { file: string; source: string }[] };
    };
    await core.handle({ type: 'scene.load', ...scenes.result.scenes.find((r) => r.source === 'shipped')! });
    await core.handle({ type: 'run.start', mode: 'dry' });
    await until(() => events.some((e) => e.type === 'log' && /session log .*finished/.test(e.message)));
    const live = events.filter((e) => e.type === 'state' || e.type === 'planner-step');

    const list = await core.handle({ type: 'sessions.list' });
    expect(list.ok).toBe(true);
    const sessions = (list as { result: { sessions: { file: string; summary: { outcome: string } }[] } })
      .result.sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.summary.outcome).toBe('finished');

    events.length = 0;
    const opened = await core.handle({ type: 'sessions.open', file: sessions[0]!.file });
    expect(opened).toMatchObject({
      ok: true,
      result: { steps: 1, playback: { position: 0, playing: false }, predictionError: null },
    });
    await core.handle({ type: 'playback.speed', speed: 10 });
    await core.handle({ type: 'playback.play' });
    await until(() => events.some((e) => e.type === 'playback' && e.status?.ended === true));
    expect(events.filter((e) => e.type === 'state' || e.type === 'planner-step')).toEqual(live);

    expect(await core.handle({ type: 'playback.speed', speed: 20 })).toMatchObject({ ok: false });
    expect(
      await core.handle({ type: 'sessions.whatif', step: 0, settings: core.snapshot().settings }),
    ).toEqual({
      ok: false,
      error: WHAT_IF_UNAVAILABLE,
    });
    core.dispose();
  });

  it("opens a log with the planner's prediction error per step, and its p50 and p95", async () => {
    const own = mkdtempSync(path.join(os.tmpdir(), 'parapush-console-prediction-'));
    const rec = await SessionRecorder.create({ dir: own, label: 'dry', origin: 'test' });
    recordEveryChannel(rec);
    rec.predictionError({ ...samplePredictionError, step: 1, position: 0.012, yaw: 0.01 });
    await rec.close();
    const core = new ConsoleCore({ scenesDir: path.join(repoRoot, 'resources/scenes'), sessionsDir: own });
    const opened = await core.handle({ type: 'sessions.open', file: path.basename(rec.file) });
    expect(opened).toMatchObject({
      ok: true,
      result: {
        predictionError: {
          steps: [0, 1],
          position: [0.004, 0.012],
          yaw: [0.035, 0.01],
          p50: { position: 0.004, yaw: 0.01 },
          p95: { position: 0.012, yaw: 0.035 },
        },
      },
    });
    core.dispose();
    rmSync(own, { recursive: true, force: true });
  });

  it('names a log cut short when the console starts, and recovers it once the operator confirms', async () => {
    const rec = await SessionRecorder.create({ dir, label: 'live', origin: 'test' });
    recordEveryChannel(rec);
    await new Promise((r) => setTimeout(r, 600));
    const cut = path.join(dir, 'cut-short.mcap');
    copyFileSync(rec.file, cut);
    await rec.close();
    const events: ConsoleEvent[] = [];
    const core = new ConsoleCore({ scenesDir: path.join(repoRoot, 'resources/scenes'), sessionsDir: dir });
    core.subscribe((e) => events.push(e));
    await until(() =>
      events.some((e) => e.type === 'log' && /needs recovery \(cut-short\.mcap\)/.test(e.message)),
    );
    const state = async () =>
      (
        (await core.handle({ type: 'sessions.list' })) as {
          result: { sessions: { file: string; state: string }[] };
        }
      ).result.sessions.find((s) => s.file === 'cut-short.mcap')?.state;
    expect(await state()).toBe('needs-recovery');
    expect(
      await core.handle({ type: 'sessions.recover', file: 'cut-short.mcap', confirm: true }),
    ).toMatchObject({
      ok: true,
      result: { damagedCopy: null },
    });
    expect(await state()).toBe('complete');
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
    core.dispose();
  });
});
