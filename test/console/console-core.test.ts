import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCommandResult, type ConsoleEvent } from '#contract/console-api';
import { ConsoleCore } from '../../src-main/console/console-core';
import {
  NO_RUN_CONTROLLER,
  type AbortSource,
  type RunController,
} from '../../src-main/console/run-controller';
import { SceneLibrary } from '../../src-main/console/scene-library';
import { loadSceneFile } from '../../src-main/common/config-files';
import { RunOwner } from '../../src-main/run/run-owner';
import { ABORTED } from '../../src-main/run/run-report';

const scenes = path.resolve('resources/scenes');
let dir: string;
let events: ConsoleEvent[];

function makeCore(runController?: RunController) {
  const core = new ConsoleCore({
    scenesDir: path.join(dir, 'shipped'),
    userScenesDir: path.join(dir, 'mine'),
    settingsFile: path.join(dir, 'settings.json'),
    runController,
  });
  core.subscribe((e) => events.push(e));
  return core;
}

async function loaded(core: ConsoleCore) {
  return parseCommandResult(
    'scene.load',
    await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' }),
  );
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'parapush-core-'));
  // A shipped folder of its own: the library writes only into its user folder.
  const library = new SceneLibrary(path.join(dir, 'unused'), path.join(dir, 'shipped'), []);
  library.save('isrr-obstacle.json', loadSceneFile(path.join(scenes, 'isrr-obstacle.json')));
  events = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ConsoleCore', () => {
  it('rejects malformed commands with the field path', async () => {
    const core = makeCore();
    expect(await core.handle({ type: 'run.start', mode: 'fast' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^malformed command: mode:/),
    });
    expect(await core.handle({ type: 'nope' })).toMatchObject({ ok: false });
    expect(await core.handle('run.abort')).toMatchObject({ ok: false });
    expect(await core.handle({ type: 'scene.load', file: '../../etc/passwd' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('file'),
    });
  });

  it('loads a scene from the library and publishes it', async () => {
    const core = makeCore();
    const r = await loaded(core);
    expect(r.scene?.name).toBe('isrr-obstacle');
    expect(r.problems).toEqual([]);
    expect(events.find((e) => e.type === 'scene')).toMatchObject({
      file: 'isrr-obstacle.json',
      dirty: false,
    });
    expect(parseCommandResult('scene.list', await core.handle({ type: 'scene.list' }))).toEqual({
      scenes: [{ file: 'isrr-obstacle.json', source: 'shipped' }],
      saveDir: path.join(dir, 'mine'),
    });
  });

  it('reports validation problems with field paths and keeps the current scene', async () => {
    const core = makeCore();
    const { scene } = await loaded(core);
    const bad = structuredClone(scene!);
    bad.sliders[0]!.mass = -1;
    bad.goal.slider = 'ghost';
    const r = parseCommandResult('scene.update', await core.handle({ type: 'scene.update', scene: bad }));
    expect(r.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['sliders[0].mass', 'goal.slider']));
    expect(r.scene?.sliders[0]!.mass).toBe(scene!.sliders[0]!.mass);
  });

  it('applies a valid update in SI units and saves it', async () => {
    const core = makeCore();
    const { scene } = await loaded(core);
    const moved = structuredClone(scene!);
    moved.sliders[0]!.pose.x = 0.123;
    const r = parseCommandResult('scene.update', await core.handle({ type: 'scene.update', scene: moved }));
    expect(r.scene?.sliders[0]!.pose.x).toBe(0.123);
    await core.handle({ type: 'scene.save', file: 'moved.json' });
    expect(JSON.parse(readFileSync(path.join(dir, 'mine', 'moved.json'), 'utf8')).sliders[0].pose.x).toBe(
      0.123,
    );
  });

  it('imports scene text and reports bad JSON', async () => {
    const core = makeCore();
    const r = parseCommandResult(
      'scene.import',
      await core.handle({ type: 'scene.import', name: 'x.json', text: '{' }),
    );
    expect(r.problems[0]!.message).toMatch(/not valid JSON/);
  });

  it('sets, presets and persists planner settings', async () => {
    const core = makeCore();
    const preset = parseCommandResult(
      'settings.preset',
      await core.handle({ type: 'settings.preset', preset: 'isrr2019-parareal-1' }),
    );
    expect(preset.settings).toMatchObject({
      predictionModel: 'parareal',
      parareal: { mode: 'iterations', iterations: 1 },
    });
    const bad = await core.handle({
      type: 'settings.set',
      settings: { ...preset.settings, parareal: { mode: 'iterations', iterations: 9 } },
    });
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('parareal.iterations') });
    const set = await core.handle({ type: 'settings.set', settings: { ...preset.settings, rollouts: 8 } });
    expect(set.ok).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'settings.json'), 'utf8')).rollouts).toBe(8);
    expect(
      parseCommandResult('settings.get', await makeCore().handle({ type: 'settings.get' })).settings.rollouts,
    ).toBe(8);
  });

  it('refuses to start a run without a run controller (no lab), and says why', async () => {
    const core = makeCore();
    await loaded(core);
    expect(await core.handle({ type: 'run.start', mode: 'dry' })).toEqual({
      ok: false,
      error: NO_RUN_CONTROLLER,
    });
    // Refused before it started: no run, so no failed run in the status or a session log.
    expect(events.filter((e) => e.type === 'run')).toEqual([]);
    expect(core.snapshot().run.phase).toBe('idle');
    expect(core.snapshot().realRun).toBe(NO_RUN_CONTROLLER);
    expect(
      events.some((e) => e.type === 'log' && e.level === 'error' && e.message.includes(NO_RUN_CONTROLLER)),
    ).toBe(true);
  });

  it('sends abort straight to the run controller before anything else', async () => {
    const order: string[] = [];
    const aborts: AbortSource[] = [];
    const controller: RunController = {
      start: async (_req, sink) =>
        sink.status({ event: { type: 'run-started' }, armed: false, safety: 'safe' }),
      arm: async () => {},
      pause: async () => {},
      resume: async () => {},
      abort: (source) => {
        order.push('controller');
        aborts.push(source);
      },
    };
    const core = makeCore(controller);
    core.subscribe(() => order.push('event'));
    await loaded(core);
    await core.handle({ type: 'run.start', mode: 'dry' });
    order.length = 0;
    await core.handle({ type: 'run.abort', source: 'escape-key' });
    expect(aborts).toEqual(['escape-key']);
    expect(order[0]).toBe('controller');
    expect(events.at(-1)).toMatchObject({ type: 'log', message: 'Abort requested by operator (Esc key)' });
  });
  it("publishes the run's status as the controller's run owner writes it, and no other", async () => {
    // A controller on a run owner, as the lab run controller is: the operator's steps go to the
    // owner, which writes the status; the core starts the run on it and releases it.
    const owner = new RunOwner({ workers: 1 });
    let ended = (): void => undefined;
    const controller: RunController = {
      owner,
      start: async (_req, sink) => {
        ended = () => sink.ended();
        owner.report({ event: { type: 'run-started' }, armed: true, safety: 'safe' });
      },
      arm: async () => {},
      pause: async () => void owner.pause('Paused by operator'),
      resume: async () => void owner.resume(),
      abort: () => void owner.abort(ABORTED),
    };
    const core = makeCore(controller);
    await loaded(core);
    await core.handle({ type: 'run.start', mode: 'dry' });
    await core.handle({ type: 'run.pause' });
    await core.handle({ type: 'run.resume' });
    await core.handle({ type: 'run.abort', source: 'button' });
    // The run's late words after the abort: readings only, the abort holds.
    owner.report({ armed: false });
    ended();
    const statuses = events.flatMap((e) => (e.type === 'run' ? [e.status] : []));
    expect(statuses.map((st) => st.phase)).toEqual([
      'starting',
      'running',
      'paused',
      'running',
      'aborted',
      'aborted',
    ]);
    // Every status the console shows is the owner's, and the snapshot too.
    expect(core.snapshot().run).toBe(owner.status);
    expect(statuses.at(-1)).toEqual(owner.status);
    expect(owner.lifecycle).toEqual({ state: 'ended', outcome: 'aborted', reason: ABORTED });
    expect(events.some((e) => e.type === 'log' && e.level === 'error')).toBe(false);
  });
});
