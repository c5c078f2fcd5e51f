// Playback events feed the same console state as a live run: live view, plots and log.
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent, PlaybackStatusInfo } from '#contract/console-api';
import { ConsoleState } from '../../src-renderer/src/state/console-state.svelte';
import { referenceScene } from '../helpers/scenes';
import { plannerStep, sampleScene, stateEvent } from '../session/sample-messages';

const status = (patch: Partial<PlaybackStatusInfo> = {}): PlaybackStatusInfo => ({
  file: 'a.mcap',
  duration: 30,
  position: 0,
  playing: false,
  speed: 1,
  ended: false,
  seeks: 1,
  ...patch,
});
const playback = (s: PlaybackStatusInfo | null): ConsoleEvent => ({ type: 'playback', status: s });
const step = (i: number): ConsoleEvent => ({ type: 'planner-step', step: plannerStep(i, i) });
const recordedLog = (message: string): ConsoleEvent => ({
  type: 'log',
  at: Date.now() / 1000 - 3600,
  level: 'info',
  source: 'run',
  message,
});

/** A console that has shown one live run: a step, a state and a log line. */
function afterLiveRun(): ConsoleState {
  const m = new ConsoleState();
  m.apply(step(0));
  m.apply(stateEvent(0.5));
  m.apply({ type: 'log', at: Date.now() / 1000, level: 'info', source: 'console', message: 'live line' });
  return m;
}

describe('console state during playback', () => {
  it('shows the replayed run in place of the live one, and brings the live one back on close', () => {
    const m = afterLiveRun();
    const liveStep = m.plannerStep;
    const livePath = m.executedPath;
    m.apply(playback(status()));
    expect(m.playback?.file).toBe('a.mcap');
    expect(m.plannerStep).toBeNull();
    expect(m.executedPath).toEqual([]);
    expect(m.stepTimings).toEqual([]);

    m.apply(step(0));
    m.apply(step(1));
    m.apply(stateEvent(1));
    m.apply({ type: 'supervisor', time: 1, decision: 'stop', reason: 'Aborted by operator' });
    m.apply(recordedLog('replayed line'));
    expect(m.plannerStep?.step).toBe(1);
    expect(m.stepTimings.map((t) => t.step)).toEqual([0, 1]);
    expect(m.playbackStepIndex).toBe(1);
    expect(m.executedPath).toHaveLength(1);
    const replayed = m.log.filter((e) => e.playback).map((e) => e.message);
    expect(replayed).toEqual(['STOP: Aborted by operator', 'replayed line']);
    expect(m.log.find((e) => e.message === 'live line')?.playback).toBeUndefined();

    m.apply(playback(null));
    expect(m.playback).toBeNull();
    expect(m.plannerStep).toBe(liveStep);
    expect(m.executedPath).toBe(livePath);
    expect(m.playbackStepIndex).toBeNull();
    expect(m.log.map((e) => e.message)).toEqual(['live line']);
  });

  it('clears what it drew when the timeline is moved, and not on progress reports', () => {
    const m = afterLiveRun();
    m.apply(playback(status()));
    m.apply(step(0));
    m.apply(recordedLog('replayed line'));
    m.apply(playback(status({ position: 2, playing: true })));
    expect(m.plannerStep?.step).toBe(0);
    expect(m.log.some((e) => e.message === 'replayed line')).toBe(true);

    m.apply(playback(status({ position: 0.5, seeks: 2 })));
    expect(m.plannerStep).toBeNull();
    expect(m.stepTimings).toEqual([]);
    expect(m.log.some((e) => e.message === 'replayed line')).toBe(false);
    expect(m.log.some((e) => e.message === 'live line')).toBe(true);
  });

  it('drops a what-if comparison and the open session when playback closes', () => {
    const m = new ConsoleState();
    m.apply(playback(status()));
    m.session = {
      file: 'a.mcap',
      steps: 2,
      summary: {
        sessionId: null,
        startedAt: 1_700_000_000,
        duration: 30,
        mode: 'dry',
        scene: 's',
        model: 'parareal:1',
        outcome: 'aborted',
        outcomeDetail: null,
        softwareVersion: null,
        recovered: false,
        messageCounts: {},
      },
      scene: null,
    };
    // Supervisor decisions are dated by the recorded run, not by the time they are replayed.
    m.apply({ type: 'supervisor', time: 2, decision: 'allow', reason: 'ok' });
    expect(m.log.at(-1)?.at).toBe(1_700_000_002);
    m.whatIf = { index: 0, original: plannerStep(0, 0), replanned: plannerStep(0, 0), label: 'x' };
    m.apply(playback(null));
    expect(m.whatIf).toBeNull();
    expect(m.session).toBeNull();
  });
});

describe('the live scene during playback', () => {
  const summary = {
    sessionId: null,
    startedAt: 1_700_000_000,
    duration: 30,
    mode: 'dry' as const,
    scene: 'isrr-obstacle',
    model: 'fine',
    outcome: 'finished',
    outcomeDetail: null,
    softwareVersion: null,
    recovered: false,
    messageCounts: {},
  };

  it('draws the recorded scene while playback is open and never writes the live one', () => {
    const m = new ConsoleState();
    m.apply({ type: 'scene', scene: sampleScene, file: 'open-table.json', dirty: false });
    const recorded = referenceScene('isrr-obstacle');
    m.apply(playback(status()));
    m.session = { file: 'a.mcap', steps: 1, summary, scene: recorded };
    expect(m.shownScene).toBe(recorded);
    // Everything a recording replays leaves the live scene as it was.
    m.apply(step(0));
    m.apply(stateEvent(1));
    m.apply(recordedLog('replayed line'));
    m.apply(playback(status({ position: 3, seeks: 2 })));
    expect(m.scene).toBe(sampleScene);
    expect(m.sceneFile).toBe('open-table.json');
    expect(m.sceneDirty).toBe(false);

    m.apply(playback(null));
    expect(m.shownScene).toBe(sampleScene);
    expect(m.scene).toBe(sampleScene);
    expect(m.sceneDirty).toBe(false);
  });

  it('draws the live scene when the log has none', () => {
    const m = new ConsoleState();
    m.apply({ type: 'scene', scene: sampleScene, file: null, dirty: true });
    m.apply(playback(status()));
    m.session = { file: 'a.mcap', steps: 1, summary, scene: null };
    expect(m.shownScene).toBe(sampleScene);
  });
});

describe('the scene draft', () => {
  it('blocks a run with its first problem in words, and lets it go once fixed or discarded', () => {
    const m = new ConsoleState();
    expect(m.draftBlocksRun).toBeNull();
    m.sceneDraft = {
      values: { 'goal.center.x': '5000' },
      problems: [
        { path: 'goal.center', message: 'is off the table' },
        { path: 'goal.radius', message: 'too small' },
      ],
    };
    expect(m.draftBlocksRun).toBe(
      'The scene draft is invalid: goal.center: is off the table (and 1 more). Fix it or discard it in the Scene view.',
    );
    m.sceneDraft = null;
    expect(m.draftBlocksRun).toBeNull();
  });
});
