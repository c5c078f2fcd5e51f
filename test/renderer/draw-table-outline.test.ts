/**
 * A table with an outline (wafr-l-shape, 0.6 m square bounding box) in the table view and the
 * calibration presets: the view fills and strokes the outline, not the bounding rectangle. On a
 * 648 x 648 px canvas with its 24 px margin the table is 1000 px per metre, centred at (324, 324),
 * so a table point (x, y) in metres is at (324 + 1000 x, 324 - 1000 y) px.
 */
import { describe, expect, it } from 'vitest';
import { tablePresets } from '../../src-renderer/src/lib/calibration-points';
import { describeView, drawTable, type LiveOverlay } from '../../src-renderer/src/lib/draw-table';
import { as2d, RecordingContext } from '../helpers/recording-canvas';
import { referenceScene } from '../helpers/scenes';
import { tableRegion } from '#contract/table-region';

const scene = referenceScene('wafr-l-shape');
const none: LiveOverlay = { step: null, state: null, executedPath: [], showRollouts: false };
const px = (x: number, y: number): [number, number] => [324 + 1000 * x, 324 - 1000 * y];
const TABLE = { fill: '#d7ccc8', edge: '#5d4037' };

describe('the table view of an outlined table', () => {
  const ctx = new RecordingContext();
  const t = drawTable(as2d(ctx), 648, 648, scene, none);
  const outline = scene.table.outline!.map((p) => px(p.x, p.y));

  it('fills and strokes the outline, at the bounding box scale', () => {
    expect(t).toEqual({ scale: 1000, cx: 324, cy: 324 });
    const fills = ctx.painted.filter((p) => p.op === 'fill' && p.style === TABLE.fill);
    expect(fills).toHaveLength(1);
    const points = fills[0]!.path.map((q) => q.args);
    expect(fills[0]!.path.map((q) => q.kind)).toEqual(['moveTo', ...outline.slice(1).map(() => 'lineTo')]);
    points.forEach((p, i) => {
      expect(p[0]).toBeCloseTo(outline[i]![0], 9);
      expect(p[1]).toBeCloseTo(outline[i]![1], 9);
    });
    const edge = ctx.polylines(TABLE.edge);
    expect(edge[0]!.points).toEqual(points);
    expect(ctx.calls('closePath').length).toBeGreaterThan(0);
  });

  it('does not paint the bounding rectangle', () => {
    expect(ctx.calls('fillRect').filter((o) => o.fillStyle === TABLE.fill)).toEqual([]);
    expect(ctx.calls('strokeRect').filter((o) => o.strokeStyle === TABLE.edge)).toEqual([]);
  });

  it('says so in words', () => {
    expect(describeView(scene, null)).toMatch(/^Table 600 × 600 mm \(outline of 6 points\); /);
  });
});

describe('calibration presets on an outlined table', () => {
  it('are inside the outline, clear of its cut-out, and spread over the table', () => {
    const presets = tablePresets(scene);
    // Inside the L, with the pusher's disc and the default margin: none on the cut-out.
    const region = tableRegion(scene.table).shrunk(0.03 + scene.pusher!.radius);
    for (const p of presets) expect(region.contains(p.x, p.y), `${p.label} (${p.x}, ${p.y})`).toBe(true);
    // A fit needs points that span the table, not one corner of it.
    expect(presets.length).toBeGreaterThanOrEqual(3);
    const xs = presets.map((p) => p.x);
    const ys = presets.map((p) => p.y);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(scene.table.size.x / 4);
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(scene.table.size.y / 4);
  });
});
