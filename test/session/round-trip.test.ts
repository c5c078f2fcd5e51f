import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stampedTopics, topics } from '../../src-main/session/channels';
import { fromLegacyUnits, upgradeLegacyMessage } from '../../src-main/session/legacy-messages';
import { loggedPlannerStep, namedState, plannerStepOf } from '../../src-main/session/named-state';
import { loadRecordedRun } from '../../src-main/session/playback';
import { SessionLog, listSessions } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { SummaryBuilder } from '../../src-main/session/session-summary';
import { lockFileOf } from '../../src-main/session/sessions-dir';
import { repoRoot } from '../helpers/scenes';
import {
  decision,
  mocapFrame,
  plannerStep,
  planarPoses,
  recordEveryChannel,
  robotState,
  sampleLab,
  sampleScene,
  sampleSettings,
  sliderIds,
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

    // Every channel holds a message; each of our own holds exactly those recorded on it.
    expect(new Set(got.map((m) => m.topic))).toEqual(new Set(topics));
    for (const topic of stampedTopics)
      expect(
        got.filter((m) => m.topic === topic),
        topic,
      ).toHaveLength(topic === '/run/status' ? 2 : 1);
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
    // The lab the run was on, read back into the summary the session list shows.
    expect(by['/session/lab']).toMatchObject({ lab: sampleLab });
    expect(summary.lab).toBe('virtual');
    // Positions, orientations and states have named fields, not unnamed arrays.
    const frame = mocapFrame(7, 0.5);
    const [px, py, pz] = frame.rigidBodies[0]!.position;
    expect(by['/mocap/frame']).toMatchObject({ frameNumber: 7, receivedAt: 0.5 });
    expect((by['/mocap/frame']!.rigidBodies as unknown[])[0]).toMatchObject({
      id: 1,
      name: 'pusher',
      position: { x: px, y: py, z: pz },
      orientation: { x: 0, y: 0 },
    });
    // The planar poses without the streamed ones, which /mocap/frame holds.
    const {
      pusher: { raw: _p, ...pusher },
      sliders,
      ...poses
    } = planarPoses(7, 0.5);
    expect(by['/mocap/poses']).toMatchObject({
      ...poses,
      pusher,
      sliders: sliders.map(({ raw: _s, ...s }) => s),
    });
    const { tcpPose, tcpSpeed, ...robot } = robotState(0.5);
    expect(by['/robot/state']).toMatchObject(robot as unknown as Record<string, unknown>);
    expect(by['/robot/state']!.tcpPose).toEqual({
      x: tcpPose[0],
      y: tcpPose[1],
      z: tcpPose[2],
      rx: tcpPose[3],
      ry: tcpPose[4],
      rz: tcpPose[5],
    });
    expect(by['/robot/state']!.tcpSpeed).toMatchObject({ vx: tcpSpeed[0], wz: tcpSpeed[5] });
    expect(by['/robot/command']).toMatchObject({
      kind: 'twist',
      sequence: 42,
      vx: 0.02,
      vy: -0.01,
      acceleration: 0.5,
    });
    expect(by['/supervisor/decision']).toMatchObject(decision);
    expect(by['/supervisor/event']).toMatchObject({ event: { type: 'supervisor', decision: 'limit' } });
    const state = stateEvent(0.5);
    expect(by['/scene/state']).toMatchObject({
      time: 0.5,
      ...namedState(sliderIds, state.type === 'state' ? state.state : []),
    });
    expect(by['/scene/state']!.sliders).toEqual([
      expect.objectContaining({ id: sliderIds[0], theta: expect.any(Number) }),
    ]);
    expect(by['/planner/step']).toMatchObject(loggedPlannerStep(plannerStep(0, 0.5)));
    expect(by['/operator/action']).toMatchObject({ action: 'run.start' });
    expect(by['/console/log']).toMatchObject({ event: { type: 'log', message: 'limited' } });
    expect(by['/run/status']).toMatchObject({ event: { type: 'run', status: { phase: 'finished' } } });
    expect(by['/run/outcome']).toMatchObject({ outcome: 'success', detail: null });

    // Timestamps: monotonic and wall clock on every message of our own, in log-time order.
    for (let i = 1; i < got.length; i++) expect(got[i]!.logTime >= got[i - 1]!.logTime).toBe(true);
    const own = got.flatMap((m) => ('mono' in m.message ? [m.message] : []));
    expect(own).toHaveLength(stampedTopics.length + 1);
    for (let i = 1; i < own.length; i++) expect(own[i]!.mono).toBeGreaterThanOrEqual(own[i - 1]!.mono);
    // Wall stamps in s since the epoch, within a minute of now.
    const now = Date.now() / 1000;
    for (const m of own) expect(Math.abs(m.wall - now)).toBeLessThan(60);

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

  it("opens a log recorded before states were named, as today's messages", async () => {
    const rec = await SessionRecorder.create({ dir: tempDir(), label: 'dry', origin: 'test' });
    // The forms these channels had: unnamed arrays, and the console events as they were.
    const state = stateEvent(0.5);
    const step = plannerStep(0, 0.5);
    const robot = robotState(0.5);
    const frame = mocapFrame(7, 0.5);
    rec.record('/robot/state', robot as never);
    rec.record('/mocap/frame', { ...frame, rigidBodies: frame.rigidBodies.map((b) => ({ ...b })) } as never);
    rec.record('/scene/state', { event: state } as never);
    rec.record('/planner/step', { event: { type: 'planner-step', step } } as never);
    await rec.close();

    const log = await SessionLog.open(rec.file);
    const by: Record<string, Record<string, unknown>> = {};
    for await (const m of log.messages(['/robot/state', '/mocap/frame', '/scene/state', '/planner/step']))
      by[m.topic] = m.message as unknown as Record<string, unknown>;
    const run = await loadRecordedRun(log);
    await log.close();
    expect(by['/robot/state']!.tcpPose).toMatchObject({ x: robot.tcpPose[0], rz: robot.tcpPose[5] });
    expect((by['/mocap/frame']!.rigidBodies as unknown[])[0]).toMatchObject({
      position: { x: frame.rigidBodies[0]!.position[0] },
    });
    expect(by['/scene/state']).toMatchObject({
      time: 0.5,
      pusher: { x: state.type === 'state' && state.state[0] },
    });
    // Playback replays exactly the events that were recorded.
    expect(run.events.map((e) => e.event)).toEqual([state, { type: 'planner-step', step }]);
  });

  it('opens planner steps logged with the since-removed timings.measuredSpeedup (always null)', () => {
    // Today's writer leaves nulls out, so these are the bytes an older writer put in the log.
    const step = plannerStep(0, 0.5);
    const withSpeedup = { ...step, timings: { ...step.timings, measuredSpeedup: null } };
    const stamps = { mono: 1, wall: 1_700_000_000 };
    const logged = [
      { ...stamps, ...loggedPlannerStep(withSpeedup as typeof step) },
      // The console-event form of logs from before states were named.
      { ...stamps, event: { type: 'planner-step', step: withSpeedup } },
    ].map((m) => JSON.parse(JSON.stringify(m)) as unknown);
    for (const json of logged) {
      const got = upgradeLegacyMessage('/planner/step', json);
      expect(got).toMatchObject({ timings: step.timings });
      expect(Object.keys(got!.timings)).not.toContain('measuredSpeedup');
    }
  });

  it('opens planner steps logged with rollouts as arrays of states (before each was { states })', async () => {
    const rec = await SessionRecorder.create({ dir: tempDir(), label: 'dry', origin: 'test' });
    const step = { ...plannerStep(0, 0.5), rollouts: [plannerStep(0, 0.5).predictions[0]!.states] };
    const today = loggedPlannerStep(step);
    rec.record('/planner/step', { ...today, rollouts: today.rollouts!.map((r) => r.states) } as never);
    await rec.close();

    const log = await SessionLog.open(rec.file);
    const got: unknown[] = [];
    for await (const m of log.messages(['/planner/step'])) got.push(m.message);
    await log.close();
    expect(got).toEqual([expect.objectContaining({ rollouts: today.rollouts })]);
    expect(plannerStepOf(got[0] as typeof today).rollouts).toEqual(step.rollouts);
  });

  it("opens the planner settings of a log an older console wrote (actionLimit), in today's names", async () => {
    // A committed log recorded before the pusher speed limit was named maxPusherSpeed.
    const file = path.join(
      repoRoot,
      'test/fixtures/sessions/2026-11-23T23-57-40-571Z_parareal-2_scene-0.mcap',
    );
    const log = await SessionLog.open(file);
    const run = await loadRecordedRun(log);
    await log.close();
    expect(run.settings).toMatchObject({ maxPusherSpeed: 0.1, predictionModel: 'parareal' });
    expect(Object.keys(run.settings!)).not.toContain('actionLimit');
    // The sessions list reads the same message on its own path.
    const old = { mono: 0, wall: 1_700_000_000, mode: 'dry', scene: sampleScene, settings: {} };
    const { maxPusherSpeed, ...rest } = sampleSettings;
    old.settings = { ...rest, actionLimit: maxPusherSpeed };
    const builder = new SummaryBuilder();
    builder.add('/session/settings', 0n, new TextEncoder().encode(JSON.stringify(old)));
    expect(builder.build(false)).toMatchObject({
      mode: 'dry',
      scene: sampleScene.name,
      model: 'auto (fine or Parareal; the choice is not in this log)',
    });
  });

  it('reads messages of a log recorded with its times in ms, in seconds', () => {
    const wall = 1_700_000_000_500;
    const stop = { kind: 'stop', at: 2500, reason: { code: 'loop-stalled', ageMs: 120 }, message: 'x' };
    expect(fromLegacyUnits('/supervisor/decision', { mono: 1, wall, ...stop })).toEqual({
      mono: 1,
      wall: 1_700_000_000.5,
      kind: 'stop',
      at: 2.5,
      reason: { code: 'loop-stalled', age: 0.12 },
      message: 'x',
    });
    expect(fromLegacyUnits('/robot/state', { mono: 1, wall, receivedAt: 2500 })).toMatchObject({
      receivedAt: 2.5,
    });
    expect(
      fromLegacyUnits('/console/log', { mono: 1, wall, event: { type: 'log', at: wall } }),
    ).toMatchObject({
      event: { at: 1_700_000_000.5 },
    });
    expect(
      fromLegacyUnits('/run/status', { mono: 1, wall, event: { type: 'run', status: { startedAt: wall } } }),
    ).toMatchObject({ event: { status: { startedAt: 1_700_000_000.5 } } });
    // A message of today's logs (its wall stamp in s) is left as it is.
    const today = { mono: 1, wall: 1_700_000_000.5, receivedAt: 2.5 };
    expect(fromLegacyUnits('/robot/state', today)).toBe(today);
    // The summary of such a log dates it in s too.
    const builder = new SummaryBuilder();
    builder.add('/session/info', 0n, new TextEncoder().encode(JSON.stringify({ mono: 0, wall })));
    expect(builder.build(false).startedAt).toBe(1_700_000_000.5);
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
    expect(s.startedAt).toBeGreaterThan(Date.now() / 1000 - 60);
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
