/**
 * The table view between runs (issue 45, finding 4): the lab's table goes out as lab-state events
 * while nothing else feeds the view, only when it moved (or once a second), never while a run
 * reports its own states or a recording plays back; the renderer draws it between runs only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { idleRunStatus, type ConsoleEvent } from '#contract/console-api';
import { LabStateFeed } from '../../src-main/console/lab-state-feed';
import { ConsoleState } from '../../src-renderer/src/state/console-state.svelte';

const feeds: LabStateFeed[] = [];
afterEach(() => feeds.splice(0).forEach((f) => f.dispose()));

/** A feed at 10 Hz whose ticks the test calls itself (the timer's first is 100 ms away). */
function feed(reading: { state: number[] } | null, quiet = false) {
  const sent: ConsoleEvent[] = [];
  const o = {
    reading,
    quiet,
  };
  const f = new LabStateFeed({
    read: () => o.reading && { sliderIds: ['object'], state: o.reading.state },
    quiet: () => o.quiet,
    publish: (e) => sent.push(e),
    rateHz: 10,
  });
  feeds.push(f);
  return { f, sent, o };
}

describe('LabStateFeed', () => {
  it('sends the table when it moves, not again while it stands still, and once a second anyway', () => {
    const { f, sent, o } = feed({ state: [-0.3, 0, 0, 0, -0.22, 0, 0, 0, 0, 0] });
    f.tick();
    expect(sent).toEqual([
      { type: 'lab-state', sliderIds: ['object'], state: [-0.3, 0, 0, 0, -0.22, 0, 0, 0, 0, 0] },
    ]);
    // Noise under 0.1 mm is not a move.
    o.reading = { state: [-0.30005, 0, 0, 0, -0.22, 0, 0, 0, 0, 0] };
    for (let i = 0; i < 5; i++) f.tick();
    expect(sent).toHaveLength(1);
    o.reading = { state: [-0.298, 0, 0, 0, -0.22, 0, 0, 0, 0, 0] };
    f.tick();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ state: [-0.298, 0, 0, 0, -0.22, 0, 0, 0, 0, 0] });
    // Ten ticks at 10 Hz still: the reading goes again, for a view opened meanwhile.
    for (let i = 0; i < 10; i++) f.tick();
    expect(sent).toHaveLength(2);
    f.tick();
    expect(sent).toHaveLength(3);
  });

  it('sends nothing while quiet (a run, a playback) or while the lab cannot place every body', () => {
    const quiet = feed({ state: [0, 0] }, true);
    quiet.f.tick();
    expect(quiet.sent).toEqual([]);
    // Quiet ends: the first reading goes out at once, whatever was sent before.
    quiet.o.quiet = false;
    quiet.f.tick();
    expect(quiet.sent).toHaveLength(1);
    const unknown = feed(null);
    unknown.f.tick();
    expect(unknown.sent).toEqual([]);
  });
});

describe('ConsoleState with lab-state', () => {
  const labState = {
    type: 'lab-state',
    sliderIds: ['object'],
    state: [-0.3, 0, 0, 0, -0.2, 0.1, 0],
  } satisfies ConsoleEvent;

  it("draws the lab between runs, without adding to the last run's path", () => {
    const model = new ConsoleState(() => 100);
    model.apply({ type: 'state', time: 4, sliderIds: ['object'], state: [-0.1, 0, 0, 0, 0, 0, 0] });
    model.apply({ type: 'run', status: { ...idleRunStatus, phase: 'finished' } });
    const path = model.executedPath;
    model.apply(labState);
    expect(model.live).toEqual({
      time: null,
      sliderIds: ['object'],
      state: labState.state,
    });
    expect(model.executedPath).toBe(path);
  });

  it("leaves a run's own states and a playback alone", () => {
    const model = new ConsoleState(() => 100);
    model.apply({ type: 'run', status: { ...idleRunStatus, phase: 'running', startedAt: 90 } });
    model.apply({ type: 'state', time: 4, sliderIds: ['object'], state: [-0.1, 0, 0, 0, 0, 0, 0] });
    model.apply(labState);
    expect(model.live?.time).toBe(4);
    const playing = new ConsoleState(() => 100);
    playing.apply({
      type: 'playback',
      status: { file: 'a.mcap', duration: 10, position: 0, playing: false, speed: 1, ended: false, seeks: 0 },
    });
    playing.apply(labState);
    expect(playing.live).toBeNull();
  });
});
