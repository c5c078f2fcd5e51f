/**
 * Saving scenes from the console: through the core's own save path, with the shipped scene folder
 * of the app, every save lands in the operator's folder ($PARAPUSH_SCENES_DIR here) and nothing
 * under resources/ changes; replacing a file there takes the operator's word.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCommandResult, type CommandType } from '#contract/console-api';
import type { Scene } from '#contract/scene';
import { resourcesDir, scenesDir, USER_SCENES_ENV } from '../../src-main/common/paths';
import { ConsoleCore } from '../../src-main/console/console-core';
import { SceneLibrary } from '../../src-main/console/scene-library';

/** Every file under `dir` with its content hash. */
function contentOf(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.set(p, createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return files;
}

let home: string;
let before: string | undefined;
let shipped: Map<string, string>;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'parapush-saves-'));
  before = process.env[USER_SCENES_ENV];
  process.env[USER_SCENES_ENV] = path.join(home, 'scenes');
  shipped = contentOf(resourcesDir);
});
afterEach(() => {
  if (before === undefined) delete process.env[USER_SCENES_ENV];
  else process.env[USER_SCENES_ENV] = before;
  rmSync(home, { recursive: true, force: true });
  // Whatever a test did, the shipped resources are exactly as they were.
  expect(contentOf(resourcesDir)).toEqual(shipped);
});

async function ok<T extends CommandType>(core: ConsoleCore, command: { type: T } & Record<string, unknown>) {
  const r = await core.handle(command);
  if (!r.ok) throw new Error(r.error);
  return parseCommandResult(command.type, r);
}

const saved = (file: string): Scene =>
  JSON.parse(readFileSync(path.join(home, 'scenes', file), 'utf8')) as Scene;

describe('Save', () => {
  it('writes a shipped scene edited under its own name into the operator folder, never into resources/', async () => {
    // The console as the app builds it: the shipped scenes of resources/, the default save folder.
    const core = new ConsoleCore({ scenesDir });
    const { scene } = await ok(core, { type: 'scene.load', file: 'isrr-obstacle.json' });
    const moved = structuredClone(scene!);
    moved.goal.center.x = 0.1234;
    await ok(core, { type: 'scene.update', scene: moved });
    const r = await ok(core, { type: 'scene.save', file: 'isrr-obstacle.json' });
    expect(r).toEqual({
      file: 'isrr-obstacle.json',
      path: path.join(home, 'scenes', 'isrr-obstacle.json'),
      saved: true,
    });
    expect(saved('isrr-obstacle.json').goal.center.x).toBe(0.1234);
    expect(core.snapshot()).toMatchObject({ sceneFile: 'isrr-obstacle.json', sceneSource: 'user' });
    // The library lists both: the operator's copy and the untouched shipped one.
    const list = await ok(core, { type: 'scene.list' });
    expect(list.saveDir).toBe(path.join(home, 'scenes'));
    expect(list.scenes).toContainEqual({ file: 'isrr-obstacle.json', source: 'user' });
    expect(list.scenes).toContainEqual({ file: 'isrr-obstacle.json', source: 'shipped' });
    core.dispose();
  });

  it('asks before replacing a file of the operator other than the one open, and replaces it on their word', async () => {
    const core = new ConsoleCore({ scenesDir });
    await ok(core, { type: 'scene.load', file: 'isrr-obstacle.json' });
    await ok(core, { type: 'scene.save', file: 'mine.json' });
    // The file open is the one saved: saving it again needs no word.
    expect((await ok(core, { type: 'scene.save', file: 'mine.json' })).saved).toBe(true);

    await ok(core, { type: 'scene.load', file: 'wafr-clutter.json' });
    const refused = await ok(core, { type: 'scene.save', file: 'mine.json' });
    expect(refused).toEqual({
      file: 'mine.json',
      path: path.join(home, 'scenes', 'mine.json'),
      saved: false,
    });
    expect(saved('mine.json').name).toBe('isrr-obstacle');
    expect((await ok(core, { type: 'scene.save', file: 'mine.json', overwrite: true })).saved).toBe(true);
    expect(saved('mine.json').name).toBe('wafr-clutter');
    core.dispose();
  });

  it('refuses a save folder inside resources/, by name or through a link, and creates nothing there', async () => {
    const inside = path.join(scenesDir, 'mine');
    expect(() => new SceneLibrary(scenesDir, inside).save('x.json', {} as Scene)).toThrow(/read only/);
    expect(existsSync(inside)).toBe(false);
    const link = path.join(home, 'link');
    symlinkSync(scenesDir, link);
    expect(() => new SceneLibrary(scenesDir, link).save('x.json', {} as Scene)).toThrow(/read only/);
    // The env override cannot point saves at the shipped scenes either.
    process.env[USER_SCENES_ENV] = scenesDir;
    const core = new ConsoleCore({ scenesDir });
    await ok(core, { type: 'scene.load', file: 'isrr-obstacle.json' });
    expect(
      await core.handle({ type: 'scene.save', file: 'isrr-obstacle.json', overwrite: true }),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/refused to save isrr-obstacle.json .*read only/),
    });
    core.dispose();
  });

  it('names a file that is missing or invalid and keeps the scene on screen', async () => {
    const core = new ConsoleCore({ scenesDir });
    await ok(core, { type: 'scene.load', file: 'isrr-obstacle.json' });
    const r = await ok(core, { type: 'scene.load', file: 'gone.json', source: 'user' });
    expect(r.problems).toEqual([{ path: '', message: 'no such file' }]);
    expect(r.file).toBe('isrr-obstacle.json');
    expect(core.snapshot().sceneFile).toBe('isrr-obstacle.json');
    core.dispose();
  });
});
