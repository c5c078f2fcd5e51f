/**
 * Known table points the calibration wizard offers as presets: the four corners and the centre
 * of the current scene's table (table frame, origin at the centre, m). The operator can edit them.
 */
import type { Scene } from '../../../src-main/contract/scene';

export interface TablePreset {
  label: string;
  x: number;
  y: number;
}

export function tablePresets(scene: Pick<Scene, 'table'> | null): TablePreset[] {
  if (!scene) return [{ label: 'centre', x: 0, y: 0 }];
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
