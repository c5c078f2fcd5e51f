/**
 * A scene's table outline (contract/scene.ts `tableSchema`): the shipped Fig. 6 tables load, a
 * bad outline is rejected with the field it is in, and positions are judged against the outline,
 * not its bounding rectangle.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src-main/common/config-files';
import { parseScene, sceneJsonSchema } from '#contract/scene-file';
import { sceneProblems } from '../helpers/scene-problems';
import { repoRoot } from '../helpers/scenes';

const file = (name: string) => path.join(repoRoot, 'resources/scenes', `${name}.json`);
/** wafr-l-shape as written: legs 0.22 m wide, the notch at x < 0.08, y > -0.08. */
const lShape = JSON.parse(readFileSync(file('wafr-l-shape'), 'utf8'));

const problemsFor = (mutate: (s: typeof lShape) => void) => sceneProblems(lShape, mutate);

describe('table outline', () => {
  it('loads the shipped Fig. 6 scenes with their outlines', () => {
    for (const name of ['wafr-changing', 'wafr-l-shape']) {
      const scene = loadSceneFile(file(name));
      expect(scene.name).toBe(name);
      expect(scene.table.outline!.length).toBeGreaterThanOrEqual(6);
    }
  });

  it.each([
    [
      'a point outside size',
      (s: typeof lShape) => (s.table.outline[3].y = 0.35),
      'table.outline[3]',
      /outside table\.size/,
    ],
    [
      'a size too small for the outline',
      (s: typeof lShape) => (s.table.size.x = 0.5),
      'table.outline[0]',
      /outside table\.size/,
    ],
    [
      'crossing edges',
      (s: typeof lShape) =>
        ([s.table.outline[1], s.table.outline[2]] = [s.table.outline[2], s.table.outline[1]]),
      'table.outline',
      /cross or touch.*simple polygon/,
    ],
    ['a clockwise outline', (s: typeof lShape) => s.table.outline.reverse(), 'table.outline', /clockwise/],
    [
      'fewer than 3 points',
      (s: typeof lShape) => (s.table.outline = s.table.outline.slice(0, 2)),
      'table.outline',
      /at least 3 points/,
    ],
    [
      'a repeated point',
      (s: typeof lShape) => s.table.outline.splice(2, 0, { ...s.table.outline[1] }),
      'table.outline[2]',
      /repeats point 1/,
    ],
    [
      'a bad point',
      (s: typeof lShape) => (s.table.outline[1] = { x: 'a', y: 0 }),
      'table.outline[1].x',
      /number/,
    ],
    [
      'a slider in the notch',
      (s: typeof lShape) => (s.sliders[0].pose = { x: -0.1, y: 0.1 }),
      'sliders[0].pose',
      /off the table/,
    ],
    [
      'the goal in the notch',
      (s: typeof lShape) => (s.goal.center = { x: 0, y: 0 }),
      'goal.center',
      /off the table/,
    ],
    [
      'the pusher in the notch',
      (s: typeof lShape) => (s.pusher.position = { x: -0.25, y: 0.25 }),
      'pusher.position',
      /off the table/,
    ],
  ])('rejects %s, naming the field', (_label, mutate, fieldPath, message) => {
    const problems = problemsFor(mutate);
    const hit = problems.find((p) => p.path === fieldPath);
    expect(hit, JSON.stringify(problems)).toBeDefined();
    expect(hit!.message).toMatch(message);
  });

  it('judges no position against a broken outline (one problem, not a cascade)', () => {
    const problems = problemsFor((s) => s.table.outline.reverse());
    expect(problems).toHaveLength(1);
  });

  it('without an outline the table is its size rectangle: the notch is on it', () => {
    const s = structuredClone(lShape);
    delete s.table.outline;
    s.sliders[0].pose = { x: -0.1, y: 0.1 };
    expect(parseScene(s).table.outline).toBeUndefined();
  });

  it('documents the outline in the JSON Schema', () => {
    const schema = sceneJsonSchema() as {
      properties: { table: { properties: { outline: { minItems: number; maxItems: number } } } };
    };
    expect(schema.properties.table.properties.outline).toMatchObject({ minItems: 3, maxItems: 64 });
  });
});
