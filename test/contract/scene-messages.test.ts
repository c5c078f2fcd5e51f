/**
 * Scene validation says what to write: off-table positions give the table's bounds, and a length
 * that reads as millimetres in a file in metres says so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { problemsOf } from '#contract/scene-file';
import { sceneSchema, type SceneInput } from '#contract/scene';

const base = JSON.parse(readFileSync('resources/scenes/isrr-obstacle.json', 'utf8')) as SceneInput;

function problems(change: (s: SceneInput) => void): { path: string; message: string }[] {
  const s = structuredClone(base);
  change(s);
  const r = sceneSchema.safeParse(s);
  return r.success ? [] : problemsOf(r.error);
}

describe('scene messages', () => {
  it('give the bounds an off-table position broke (the 1 m x 0.8 m table)', () => {
    expect(problems((s) => (s.goal.center.x = 0.55))).toEqual([
      { path: 'goal.center', message: 'is off the table (x must be within -0.50..0.50 m)' },
    ]);
    expect(problems((s) => (s.sliders[0]!.pose = { x: -0.6, y: 0.45, theta: 0 }))).toEqual([
      {
        path: 'sliders[0].pose',
        message: 'is off the table (x must be within -0.50..0.50 m, y must be within -0.40..0.40 m)',
      },
    ]);
  });

  it("name the outline when a point is inside the table's extent but off its outline", () => {
    const outline = [
      { x: -0.5, y: -0.4 },
      { x: 0.5, y: -0.4 },
      { x: -0.5, y: 0.4 },
    ];
    expect(problems((s) => ((s.table.outline = outline), (s.goal.center = { x: 0.4, y: 0.3 })))).toEqual([
      {
        path: 'goal.center',
        message:
          'is off the table: outside its outline (table.outline; the table spans x -0.50..0.50 m, y -0.40..0.40 m)',
      },
    ]);
  });

  it('say that scene files are in metres when a length reads as millimetres', () => {
    expect(problems((s) => (s.pusher!.radius = 14.5))).toEqual([
      {
        path: 'pusher.radius',
        message: '14.5 is more than 1 m; scene files are in metres (14.5 mm = 0.0145)',
      },
    ]);
    expect(problems((s) => (s.table.size.x = 1000))).toContainEqual({
      path: 'table.size.x',
      message: '1000 is more than 5 m; scene files are in metres (1000 mm = 1)',
    });
    // Just over the limit is a length in metres too long, not millimetres.
    expect(problems((s) => (s.pusher!.radius = 1.5))).toEqual([
      { path: 'pusher.radius', message: 'must be at most 1 m' },
    ]);
  });
});
