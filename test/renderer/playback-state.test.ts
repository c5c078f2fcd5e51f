// Playback events feed the same console state as a live run: live view, plots and log.
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent, PlaybackStatusInfo } from '../../src-main/contract/console-api';
import { ConsoleState } from '../../src-renderer/src/state/console-state.svelte';
import { plannerStep, stateEvent } from '../session/sample-messages';

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
