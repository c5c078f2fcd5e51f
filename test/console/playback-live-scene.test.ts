/**
 * Watching a recording never changes the live setup (issue 30, finding 1): a session recorded on
 * an edited scene opens with that scene for the view only (sessions.open's result); the console's
 * own scene, its file and its saved state stay as the operator left them, no scene event goes out,
 * and the next run plans with the live scene.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { RunRequest, RunSink } from '../../src-main/console/run-controller';
import type { CommandResult, CommandType, ConsoleEvent } from '#contract/console-api';
import type { Scene } from '#contract/scene';
import { repoRoot } from '../helpers/scenes';
import { plannerStep, stateEvent } from '../session/sample-messages';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-playback-scene-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A run that reports a state and a step, then finishes; it keeps the scene each run was given. */
class ScriptedRun {
  readonly scenes: Scene[] = [];
  async start(request: RunRequest, sink: RunSink): Promise<void> {
    this.scenes.push(request.scene);
    sink.status({ event: { type: 'run-started' }, safety: 'safe' });
    setTimeout(() => {
      sink.emit(stateEvent(0.1));
      sink.emit({ type: 'planner-step', step: plannerStep(0, 0.2) });
      sink.status({ event: { type: 'end', outcome: 'finished', reason: 'Goal reached' } });
      sink.ended();
    }, 20);
  }
  async arm(): Promise<void> {}
  async pause(): Promise<void> {}
  async resume(): Promise<void> {}
  abort(): void {}
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

async function ok<T extends CommandType = CommandType>(
  core: ConsoleCore,
  command: unknown,
): Promise<CommandResult<T>> {
  const r = await core.handle(command);
  if (!r.ok) throw new Error(r.error);
  return r.result as CommandResult<T>;
}

describe('playback and the live scene', () => {
  it('opens and closes a session recorded on an edited scene without touching the live scene', async () => {
    const run = new ScriptedRun();
    const core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      runController: run as never,
      sessionsDir: dir,
    });
    const events: ConsoleEvent[] = [];
    core.subscribe((e) => events.push(e));

    // A run on an edited scene: the goal moved 100 mm.
    const shipped = (await ok<'scene.load'>(core, { type: 'scene.load', file: 'isrr-obstacle.json' })).scene!;
    const edited: Scene = structuredClone(shipped);
    edited.goal.center.x += 0.1;
    expect((await ok<'scene.update'>(core, { type: 'scene.update', scene: edited })).problems).toEqual([]);
    await ok(core, { type: 'run.start', mode: 'dry' });
    await until(() => events.some((e) => e.type === 'log' && /session log .*finished/.test(e.message)));

    // The operator loads the shipped scene again, then watches the recording.
    await ok(core, { type: 'scene.load', file: 'isrr-obstacle.json' });
    const listed = await ok<'sessions.list'>(core, { type: 'sessions.list' });
    events.length = 0;
    const opened = await ok<'sessions.open'>(core, { type: 'sessions.open', file: listed.sessions[0]!.file });
    expect(opened.scene?.goal.center.x).toBeCloseTo(edited.goal.center.x, 12);
    await ok(core, { type: 'playback.speed', speed: 10 });
    await ok(core, { type: 'playback.play' });
    await until(() => events.some((e) => e.type === 'playback' && e.status?.ended === true));
    await ok(core, { type: 'playback.close' });

    expect(events.filter((e) => e.type === 'scene')).toEqual([]);
    expect(core.snapshot()).toMatchObject({ scene: shipped, sceneFile: 'isrr-obstacle.json' });
    // The next run plans with the live scene, not the recorded one.
    await ok(core, { type: 'run.start', mode: 'dry' });
    expect(run.scenes.at(-1)).toEqual(shipped);
    await until(
      () => events.filter((e) => e.type === 'log' && /session log .*finished/.test(e.message)).length === 1,
    );
    core.dispose();
  });
});
