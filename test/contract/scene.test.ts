import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src-main/common/config-files';
import { NoSuchSceneFileError, parseScene, sceneJsonSchema } from '#contract/scene-file';
import { minimalSceneJson, sceneProblems } from '../helpers/scene-problems';
import { repoRoot } from '../helpers/scenes';

// Untyped, so that the cases below can write any field with any value.
const good = JSON.parse(JSON.stringify(minimalSceneJson()));

const problemsFor = (mutate: (s: typeof good) => void) => sceneProblems(good, mutate);

describe('scene schema', () => {
  it('accepts a minimal scene and fills the documented defaults', () => {
    const s = parseScene(good);
    expect(s.limits.maxPusherSpeed).toBe(0.1);
    expect(s.fine).toEqual({ timestep: 0.001, integrator: 'RK4' });
    expect(s.coarse).toEqual({ kOmega: 0.1, maxOmega: 0.05 });
    expect(s.sliders[0]!.pose.theta).toBe(0);
    expect(s.obstacles).toEqual([]);
  });

  it.each([
    [
      'a negative radius',
      (s: typeof good) => (s.sliders[0].shape.radius = -1),
      'sliders[0].shape.radius',
      /greater than 0/,
    ],
    ['a wrong type', (s: typeof good) => (s.table.friction = 'high'), 'table.friction', /number/],
    ['a missing field', (s: typeof good) => delete s.pusher.radius, 'pusher.radius', /number/],
    [
      'an unknown field',
      (s: typeof good) => (s.sliders[0].colour = 'red'),
      'sliders[0].colour',
      /unknown field/,
    ],
    [
      'an unknown shape',
      (s: typeof good) => (s.sliders[0].shape.kind = 'sphere'),
      'sliders[0].shape.kind',
      /./,
    ],
    [
      'a goal naming no slider',
      (s: typeof good) => (s.goal.slider = 'zz'),
      'goal.slider',
      /no slider has id "zz"/,
    ],
    [
      'a slider off the table',
      (s: typeof good) => (s.sliders[0].pose.x = 3),
      'sliders[0].pose',
      /off the table/,
    ],
    ['a bad integrator', (s: typeof good) => (s.fine = { integrator: 'Verlet' }), 'fine.integrator', /RK4/],
    [
      'NaN-like values',
      (s: typeof good) => (s.limits = { maxPusherSpeed: 0 }),
      'limits.maxPusherSpeed',
      /greater than 0/,
    ],
    ['too many sliders', (s: typeof good) => (s.sliders = Array(9).fill(s.sliders[0])), 'sliders', /8/],
  ])('rejects %s with the field path', (_label, mutate, fieldPath, message) => {
    const problems = problemsFor(mutate);
    const hit = problems.find((p) => p.path === fieldPath);
    expect(hit, JSON.stringify(problems)).toBeDefined();
    expect(hit!.message).toMatch(message);
  });

  it('names the file, the field path and the problem in the error message', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'scene-'));
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify({ ...good, table: { size: { x: 1, y: -1 }, friction: 0.8 } }));
    expect(() => loadSceneFile(file)).toThrow(
      /broken\.json: invalid scene\n\s+table\.size\.y: must be greater than 0/,
    );
    writeFileSync(file, '{ not json');
    expect(() => loadSceneFile(file)).toThrow(/not valid JSON/);
  });

  it('says "no such file" for a path that names nothing, not "invalid scene ... ENOENT"', () => {
    const file = path.join(os.tmpdir(), 'parapush-no-such-scene.json');
    expect(() => loadSceneFile(file)).toThrow(NoSuchSceneFileError);
    expect(() => loadSceneFile(file)).toThrow(`no such file: ${file}`);
  });

  it('loads every shipped scene', () => {
    for (const n of ['isrr-obstacle', 'cvs-multi-object', 'wafr-narrow-strip', 'wafr-wide-table']) {
      expect(loadSceneFile(path.join(repoRoot, 'resources/scenes', `${n}.json`)).name).toBe(n);
    }
  });

  it('exports a JSON Schema that matches the shipped copy', async () => {
    const shipped = JSON.parse(
      (await import('node:fs')).readFileSync(
        path.join(repoRoot, 'resources/schemas/scene.schema.json'),
        'utf8',
      ),
    );
    expect(sceneJsonSchema()).toEqual(shipped);
  });
});
