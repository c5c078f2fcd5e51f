/**
 * The core's side of jogging while a run owns the arm (issue 45, finding 4): a jog and its check
 * are refused with the run's phase and why, never "calibration cannot change"; the table view
 * follows the lab between runs and is left to the run's own states while it runs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { RunController } from '../../src-main/console/run-controller';

const scenes = path.resolve('resources/scenes');

/** A core on a controller whose runs start at once and run until aborted, fed `reading` as the lab's table. */
async function runningCore(reading: number[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'parapush-jog-run-'));
  const controller: RunController = {
    start: async (_req, sink) => sink.status({ event: { type: 'run-started' }, armed: true, safety: 'safe' }),
    arm: async () => {},
    pause: async () => {},
    resume: async () => {},
    abort: () => undefined,
  };
  const core = new ConsoleCore({
    scenesDir: scenes,
    userScenesDir: dir,
    runController: controller,
    tableReading: () => ({ sliderIds: ['object'], state: reading }),
  });
  const events: ConsoleEvent[] = [];
  core.subscribe((e) => events.push(e));
  await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' });
  return { core, events };
}

const labStates = (events: ConsoleEvent[]) => events.filter((e) => e.type === 'lab-state').length;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('jogging while a run owns the arm', () => {
  it('refuses the jog and its check with the phase and the reason', async () => {
    const { core } = await runningCore([-0.3, 0, 0, 0, -0.22, 0, 0, 0, 0, 0]);
    await core.handle({ type: 'run.start', mode: 'dry' });
    const why =
      'the arm cannot be jogged while a run is running: the run owns the arm (abort it, or wait for its end)';
    expect(await core.handle({ type: 'calibration.jog', dx: 0.01, dy: 0 })).toEqual({
      ok: false,
      error: why,
    });
    expect(await core.handle({ type: 'calibration.jog-check', dx: 0.01, dy: 0 })).toEqual({
      ok: false,
      error: why,
    });
    core.dispose();
  });

  it('feeds the table view from the lab between runs, and not while a run runs', async () => {
    const { core, events } = await runningCore([-0.3, 0, 0, 0, -0.22, 0, 0, 0, 0, 0]);
    await wait(300);
    expect(events.find((e) => e.type === 'lab-state')).toEqual({
      type: 'lab-state',
      sliderIds: ['object'],
      state: [-0.3, 0, 0, 0, -0.22, 0, 0, 0, 0, 0],
    });
    await core.handle({ type: 'run.start', mode: 'dry' });
    const before = labStates(events);
    await wait(1500);
    expect(labStates(events)).toBe(before);
    core.dispose();
  });
});
