/**
 * Known table points the calibration wizard offers as presets: the four corners and the centre
 * of the current scene's table (table frame, origin at the centre, m), or for a table with an
 * outline its points and the centre where it is on the table. The operator can edit them.
 */
import type { Scene } from '#contract/scene';
import { tableRegion } from '#contract/table-region';

export interface TablePreset {
  label: string;
  x: number;
  y: number;
}

export function tablePresets(scene: Pick<Scene, 'table'> | null): TablePreset[] {
  if (!scene) return [{ label: 'centre', x: 0, y: 0 }];
  const { outline } = scene.table;
  if (outline) {
    const corners = outline.map((p, i) => ({ label: `outline point ${i}`, x: p.x, y: p.y }));
    return tableRegion(scene.table).contains(0, 0) ? [{ label: 'centre', x: 0, y: 0 }, ...corners] : corners;
  }
  const hx = scene.table.size.x / 2;
  const hy = scene.table.size.y / 2;
  return [
    { label: 'centre', x: 0, y: 0 },
    { label: 'corner −x −y', x: -hx, y: -hy },
    { label: 'corner +x −y', x: hx, y: -hy },
    { label: 'corner +x +y', x: hx, y: hy },
    { label: 'corner −x +y', x: -hx, y: hy },
  ];
}

type Point3 = readonly [number, number, number] | number[];

/** Closer than this, two measurements are one place: the marker's noise while still is well under it. */
export const SAME_PLACE = 0.002;
/** Table points at least this far apart should have been measured apart too. */
const DIFFERENT_POINTS = 0.01;

/**
 * Pairs whose measurements are one place although their table points are not: the pusher was not
 * moved between captures (on the virtual lab it cannot be moved by hand). Each as [earlier, later]
 * pair indices, from 0.
 */
export function repeatedMeasurements(pairs: { table: Point3; measured: Point3 }[]): [number, number][] {
  const dist = (a: Point3, b: Point3): number => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
  const found: [number, number][] = [];
  for (let j = 1; j < pairs.length; j++)
    for (let i = 0; i < j; i++)
      if (
        dist(pairs[i]!.measured, pairs[j]!.measured) < SAME_PLACE &&
        dist(pairs[i]!.table, pairs[j]!.table) >= DIFFERENT_POINTS
      )
        found.push([i, j]);
  return found;
}
