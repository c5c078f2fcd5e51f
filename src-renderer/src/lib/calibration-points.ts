/**
 * Known table points the calibration wizard offers as presets: the four corners and the centre
 * of the current scene's table (table frame, origin at the centre, m), or for a table with an
 * outline its points and the centre where it is on the table. The operator can edit them.
 */
import type { Scene } from '../../../src-main/contract/scene';
import { tableRegion } from '../../../src-main/contract/table-region';

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
