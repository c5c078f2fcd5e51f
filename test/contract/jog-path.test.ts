import { describe, expect, it } from 'vitest';
import { pointGap } from '#contract/footprint';
import { jogBodies, judgeJogPath, toolReach, type JogScene } from '#contract/jog-path';
import { tableRegion } from '#contract/table-region';
import { tablePresets } from '../../src-renderer/src/lib/calibration-points';
import { referenceScene } from '../helpers/scenes';

// isrr-obstacle: a 1 x 0.8 m table, the object (r 51.15 mm) at (-220, 0) mm, the obstacle
// (r 40 mm) at the centre, the pusher r 14.5 mm.
const isrr = referenceScene('isrr-obstacle');
const jogScene = (objects = new Map<string, { x: number; y: number; theta: number }>()): JogScene => ({
  table: isrr.table,
  margin: 0.03,
  reach: toolReach(isrr),
  bodies: jogBodies(isrr, objects),
});

describe('judgeJogPath', () => {
  it('passes a path clear of every body and of the edge', () => {
    expect(judgeJogPath(jogScene(), { x: -0.3, y: 0.2 }, { x: -0.25, y: 0.2 })).toEqual({ verdict: 'clear' });
  });

  it('asks before a path that sweeps the pusher into the object, naming it', () => {
    // From (-330, 0) towards the object's edge at -271 mm: the pusher's disc reaches it at -285.6 mm.
    const v = judgeJogPath(jogScene(), { x: -0.33, y: 0 }, { x: -0.28, y: 0 });
    expect(v.verdict).toBe('crosses');
    if (v.verdict !== 'crosses') return;
    expect(v.bodies).toEqual(['object']);
    expect(v.message).toContain('object object');
    expect(v.message).toContain('push the object out of place');
    expect(v.message).toContain('15 mm radius');
  });

  it('counts the pusher radius: a path whose line misses a body but whose disc does not crosses it', () => {
    // Passing the obstacle (r 40 mm at the centre) 50 mm off its centre: 10 mm clear of its edge,
    // less than the pusher's 14.5 mm radius.
    const v = judgeJogPath(jogScene(), { x: -0.02, y: 0.05 }, { x: 0.02, y: 0.05 });
    expect(v).toMatchObject({ verdict: 'crosses', bodies: ['obstacle'] });
    expect(v.verdict === 'crosses' && v.message).toContain('run into the obstacle');
    // 60 mm off: 20 mm from its edge, clear of the disc.
    expect(judgeJogPath(jogScene(), { x: -0.02, y: 0.06 }, { x: 0.02, y: 0.06 }).verdict).toBe('clear');
  });

  it('judges objects where they are now, not at their start poses', () => {
    const moved = new Map([['object', { x: 0.3, y: 0.2, theta: 0 }]]);
    const path = [
      { x: -0.33, y: 0 },
      { x: -0.28, y: 0 },
    ] as const;
    expect(judgeJogPath(jogScene(moved), ...path).verdict).toBe('clear');
    expect(judgeJogPath(jogScene(moved), { x: 0.3, y: 0.12 }, { x: 0.3, y: 0.15 })).toMatchObject({
      verdict: 'crosses',
      bodies: ['object'],
    });
  });

  it('checks boxes by their rotated footprint', () => {
    const box = {
      ...isrr,
      obstacles: [
        {
          id: 'wall',
          shape: { kind: 'box' as const, sizeX: 0.2, sizeY: 0.02, height: 0.05 },
          pose: { x: 0, y: 0.2, theta: Math.PI / 2 },
        },
      ],
    };
    const scene = { ...jogScene(), bodies: jogBodies(box) };
    // Turned a quarter turn the wall runs along y from 100 to 300 mm, 10 mm thick.
    expect(judgeJogPath(scene, { x: -0.04, y: 0.25 }, { x: 0.04, y: 0.25 }).verdict).toBe('crosses');
    expect(judgeJogPath(scene, { x: -0.04, y: 0.35 }, { x: 0.04, y: 0.35 }).verdict).toBe('clear');
  });

  it('lets a pusher touching a body move off it or along it, but not further in', () => {
    // Touching the obstacle from the left: centre at -50 mm, disc 14.5 mm, obstacle edge at -40 mm.
    const start = { x: -0.05, y: 0 };
    expect(judgeJogPath(jogScene(), start, { x: -0.09, y: 0 }).verdict).toBe('clear');
    expect(judgeJogPath(jogScene(), start, { x: -0.05, y: 0.05 }).verdict).toBe('clear');
    expect(judgeJogPath(jogScene(), start, { x: -0.04, y: 0 }).verdict).toBe('crosses');
  });

  it('refuses a target within the workspace margin of the table edge, saying the margin and why', () => {
    // The table's +x edge is at 500 mm; the margin 30 mm: 480 mm is 20 mm from the edge.
    const v = judgeJogPath(jogScene(), { x: 0.44, y: 0.2 }, { x: 0.48, y: 0.2 });
    expect(v.verdict).toBe('refused');
    expect(v.verdict === 'refused' && v.message).toMatch(
      /\(480, 200\) mm, 20 mm from the table edge; jogs stay 30 mm inside it \(the setup's workspace margin/,
    );
    // 465 mm is 35 mm inside the edge: allowed.
    expect(judgeJogPath(jogScene(), { x: 0.44, y: 0.2 }, { x: 0.465, y: 0.2 }).verdict).toBe('clear');
    // Past the edge (y = 400 mm) by 30 mm.
    expect(judgeJogPath(jogScene(), { x: 0.44, y: 0.38 }, { x: 0.44, y: 0.43 })).toMatchObject({
      verdict: 'refused',
      message: expect.stringContaining('30 mm beyond the table edge'),
    });
  });

  it('lets a pusher already outside the workspace come back in, never further out', () => {
    expect(judgeJogPath(jogScene(), { x: 0.49, y: 0.2 }, { x: 0.48, y: 0.2 }).verdict).toBe('clear');
    expect(judgeJogPath(jogScene(), { x: 0.48, y: 0.2 }, { x: 0.49, y: 0.2 }).verdict).toBe('refused');
    expect(judgeJogPath(jogScene(), { x: 0.48, y: 0.2 }, { x: 0.48, y: 0.25 }).verdict).toBe('refused');
  });

  it('sweeps a gripper by the disc that holds its open footprint', () => {
    const wafr = referenceScene('wafr-clutter');
    const g = wafr.gripper!;
    const reach = toolReach(wafr);
    expect(reach).toBeGreaterThan(g.maxOpening / 2 + g.finger.thickness);
    expect(reach).toBeGreaterThan(g.finger.length / 2 + g.palm.depth);
  });
});

describe('tablePresets', () => {
  it('chooses points clear of the obstacle and the object, inside the workspace, spanning the table', () => {
    const presets = tablePresets(isrr, 0.03);
    expect(presets).toHaveLength(5);
    const reach = toolReach(isrr);
    const workspace = tableRegion(isrr.table).shrunk(0.03 + reach);
    for (const p of presets) {
      expect(workspace.contains(p.x, p.y), p.label).toBe(true);
      for (const b of jogBodies(isrr))
        expect(pointGap(b.footprint, p.x, p.y) - reach, `${p.label} / ${b.id}`).toBeGreaterThanOrEqual(0.02);
    }
    // Not the centre, where the obstacle sits: the nearest clear point, labelled as moved.
    const centre = presets[0]!;
    expect(centre.label).toBe('near centre');
    expect(Math.hypot(centre.x, centre.y)).toBeGreaterThanOrEqual(0.04 + reach + 0.02 - 1e-9);
    expect(Math.hypot(centre.x, centre.y)).toBeLessThan(0.085);
    // Not the table corners on its edge: well inside them, one in each quadrant.
    const corners = presets.slice(1);
    expect(corners.map((p) => [Math.sign(p.x), Math.sign(p.y)])).toEqual([
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ]);
    for (const p of corners) {
      expect(Math.abs(p.x)).toBeGreaterThan(0.25);
      expect(Math.abs(p.y)).toBeGreaterThan(0.2);
    }
  });

  it('keeps the centre on a table with nothing there, and never repeats a point', () => {
    const open = { ...isrr, obstacles: [], sliders: [] };
    const presets = tablePresets(open);
    expect(presets[0]).toEqual({ label: 'centre', x: 0, y: 0 });
    expect(new Set(presets.map((p) => `${p.x},${p.y}`)).size).toBe(presets.length);
  });
});
