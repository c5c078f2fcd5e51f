/**
 * Known table points the calibration wizard offers as presets: one near the centre and one near
 * each corner of the workspace (the table shrunk by the setup's workspace margin, and by the
 * pusher's reach so that its disc stays inside too), each moved to the nearest point clear of the
 * scene's obstacles and objects (at their start poses): a pusher put on a preset touches nothing,
 * and the points still span the table, as a fit needs. Table frame, origin at the centre, m. The
 * operator can edit them.
 */
import type { Scene } from '#contract/scene';
import { jogBodies, toolReach } from '#contract/jog-path';
import { pointGap } from '#contract/footprint';
import { tableRegion } from '#contract/table-region';

export interface TablePreset {
  label: string;
  x: number;
  y: number;
}

/** The setup's default workspace margin (m), for a lab that has not said its own. */
export const DEFAULT_WORKSPACE_MARGIN = 0.03;
/** Room a preset keeps between the pusher's disc and any body (m): a hand placing it has some. */
export const PRESET_CLEARANCE = 0.02;
/** How far towards its corner a corner preset starts, as a fraction of the workspace's half size. */
const CORNER_REACH = 0.75;
/** Grid of the search for a clear point (m). */
const STEP = 0.005;
/** Presets closer than this (m) add nothing to a fit: the second is dropped. */
const MIN_SPACING = 0.05;

export function tablePresets(
  scene: Pick<Scene, 'table' | 'obstacles' | 'sliders' | 'pusher' | 'gripper'> | null,
  margin = DEFAULT_WORKSPACE_MARGIN,
): TablePreset[] {
  if (!scene) return [{ label: 'centre', x: 0, y: 0 }];
  const reach = toolReach(scene);
  const inside = tableRegion(scene.table).shrunk(margin + reach);
  const bodies = jogBodies(scene);
  const clear = (x: number, y: number): boolean =>
    inside.contains(x, y) && bodies.every((b) => pointGap(b.footprint, x, y) - reach >= PRESET_CLEARANCE);
  // Whole millimetres: a preset is a point the operator marks on the table with a rule.
  const hx = roundMm((scene.table.size.x / 2 - margin - reach) * CORNER_REACH);
  const hy = roundMm((scene.table.size.y / 2 - margin - reach) * CORNER_REACH);
  const anchors = [
    { label: 'centre', x: 0, y: 0 },
    { label: 'corner −x −y', x: -hx, y: -hy },
    { label: 'corner +x −y', x: hx, y: -hy },
    { label: 'corner +x +y', x: hx, y: hy },
    { label: 'corner −x +y', x: -hx, y: hy },
  ];
  const chosen: TablePreset[] = [];
  const limit = Math.ceil(Math.max(scene.table.size.x, scene.table.size.y) / 2 / STEP);
  for (const a of anchors) {
    const p = nearestClear(a, limit, clear);
    if (!p || chosen.some((c) => Math.hypot(c.x - p.x, c.y - p.y) < MIN_SPACING)) continue;
    const moved = p.x !== a.x || p.y !== a.y;
    chosen.push({ label: moved ? `near ${a.label}` : a.label, x: p.x, y: p.y });
  }
  return chosen;
}

const roundMm = (m: number): number => Math.round(m * 1000) / 1000;

/** The clear grid point nearest `a`, searched in growing square rings; null when none is. */
function nearestClear(
  a: { x: number; y: number },
  rings: number,
  clear: (x: number, y: number) => boolean,
): { x: number; y: number } | null {
  if (clear(a.x, a.y)) return { x: a.x, y: a.y };
  for (let r = 1; r <= rings; r++) {
    let best: { x: number; y: number; d: number } | null = null;
    for (let i = -r; i <= r; i++)
      for (let j = -r; j <= r; j++) {
        if (Math.max(Math.abs(i), Math.abs(j)) !== r) continue;
        const x = roundMm(a.x + i * STEP);
        const y = roundMm(a.y + j * STEP);
        const d = Math.hypot(x - a.x, y - a.y);
        if ((!best || d < best.d) && clear(x, y)) best = { x, y, d };
      }
    if (best) return { x: best.x, y: best.y };
  }
  return null;
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
