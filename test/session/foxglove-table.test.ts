/**
 * The session log's Foxglove table (session/foxglove.ts `tableScene`): a rectangle table is the
 * slab it always was; a table with an outline is the outline's polygon, as triangles that cover
 * exactly its area, so the notch of an L is not drawn as table.
 */
import { describe, expect, it } from 'vitest';
import { signedArea2 } from '#contract/polygon';
import { tableScene } from '../../src-main/session/foxglove';
import { sceneUpdateSchema } from '../../src-main/session/foxglove-schemas';
import { referenceScene } from '../helpers/scenes';

const time = { sec: 1, nsec: 0 };
const tableOf = (name: string) => {
  const update = tableScene(referenceScene(name), time);
  expect(sceneUpdateSchema.safeParse(update).success).toBe(true);
  return update.entities.find((e) => e.id === 'table')!;
};

describe('the Foxglove table', () => {
  it('is a slab of the table size without an outline', () => {
    const table = tableOf('wafr-wide-table');
    expect(table.triangles).toEqual([]);
    expect(table.cubes).toHaveLength(1);
    expect(table.cubes[0]!.size).toMatchObject({ x: 0.6, y: 0.6 });
  });

  it('is the outline, triangulated, with one', () => {
    const scene = referenceScene('wafr-l-shape');
    const table = tableOf('wafr-l-shape');
    expect(table.cubes).toEqual([]);
    const points = table.triangles[0]!.points;
    expect(points).toHaveLength(3 * (scene.table.outline!.length - 2));
    let area = 0;
    for (let i = 0; i < points.length; i += 3) area += signedArea2(points.slice(i, i + 3)) / 2;
    expect(area).toBeCloseTo(signedArea2(scene.table.outline!) / 2, 12);
    expect(area).toBeCloseTo(0.6 * 0.6 - 0.38 * 0.38, 12);
    for (const p of points) expect(p.z).toBe(0);
  });
});
