/**
 * The table view of a gripper scene (wafr-clutter): the gripper's palm and both fingers where the
 * measured state puts them (yaw and opening included), the sliders after the gripper's four state
 * entries, and the grasp goal's target marked instead of a goal region.
 */
import { describe, expect, it } from 'vitest';
import type { Scene } from '#contract/scene';
import { gripperParts, partCorners, type GripperPose } from '#contract/gripper-geometry';
import {
  drawTable,
  FINGER_FILL,
  TARGET_COLOUR,
  type LiveOverlay,
} from '../../src-renderer/src/lib/draw-table';
import { toCanvas, type ViewTransform } from '../../src-renderer/src/lib/table-view';
import { as2d, RecordingContext, type Painted } from '../helpers/recording-canvas';
import { referenceScene } from '../helpers/scenes';

const scene: Scene = referenceScene('wafr-clutter');
const g = scene.gripper!;
/** The gripper's parts, each as its four corners in the table frame. */
const gripperOutline = (p: GripperPose): [number, number][][] => gripperParts(g, p).map(partCorners);
const none: LiveOverlay = { step: null, state: null, executedPath: [], showRollouts: false };

function draw(overlay: Partial<LiveOverlay> = {}) {
  const ctx = new RecordingContext();
  const t = drawTable(as2d(ctx), 1000, 800, scene, { ...none, ...overlay });
  return { ctx, t };
}

/** The corners of each filled polygon in a colour, in canvas px. */
function polygons(ctx: RecordingContext, colour: string): [number, number][][] {
  return ctx.painted
    .filter((p: Painted) => p.op === 'fill' && p.style === colour && p.path.every((q) => q.kind !== 'arc'))
    .map((p) => p.path.map((q) => [q.args[0]!, q.args[1]!] as [number, number]));
}

const expectCorners = (got: [number, number][] | undefined, want: [number, number][], t: ViewTransform) => {
  expect(got).toHaveLength(4);
  want.forEach(([x, y], k) => {
    const [px, py] = toCanvas(t, x, y);
    expect(got![k]![0]).toBeCloseTo(px, 6);
    expect(got![k]![1]).toBeCloseTo(py, 6);
  });
};

/** A gripper-layout state: (x, y, yaw, opening), each slider's pose, then zero velocities. */
function state(gripper: [number, number, number, number], sliders: [number, number, number][]): number[] {
  const q = [...gripper, ...sliders.flat()];
  return [...q, ...q.map(() => 0)];
}

describe('the table view of a gripper scene', () => {
  it("draws the palm and both fingers at the scene's start when nothing is measured", () => {
    const { ctx, t } = draw();
    const [palm, left, right] = gripperOutline({
      x: g.pose.x,
      y: g.pose.y,
      yaw: g.pose.theta,
      opening: g.opening,
    });
    const palms = polygons(ctx, '#ef6c00');
    expect(palms).toHaveLength(1);
    expectCorners(palms[0], palm!, t);
    const fingers = polygons(ctx, FINGER_FILL);
    expect(fingers).toHaveLength(2);
    expectCorners(fingers[0], left!, t);
    expectCorners(fingers[1], right!, t);
    // Facing +x with 140 mm between the fingers' inner faces: their centres are 140 + 12 mm apart
    // across the canvas's y axis, and the palm lies to their left (behind them).
    const centre = (c: [number, number][]): [number, number] => [
      c.reduce((s, p) => s + p[0], 0) / 4,
      c.reduce((s, p) => s + p[1], 0) / 4,
    ];
    const [lx, ly] = centre(fingers[0]!);
    const [rx, ry] = centre(fingers[1]!);
    expect(lx).toBeCloseTo(rx, 6);
    expect(ry - ly).toBeCloseTo(0.152 * t.scale, 6);
    expect(centre(palms[0]!)[0]).toBeLessThan(lx);
    // No pusher disc.
    expect(ctx.discs('#ef6c00')).toEqual([]);
  });

  it('draws the gripper where the state puts it, turned and closed to its measured opening', () => {
    const s = state(
      [0.1, -0.05, Math.PI / 2, 0.06],
      [
        [0.1, 0.05, 0],
        [0, 0.05, 0],
        [0.1, -0.12, 0.5],
      ],
    );
    const { ctx, t } = draw({ state: s });
    const [palm, left, right] = gripperOutline({ x: 0.1, y: -0.05, yaw: Math.PI / 2, opening: 0.06 });
    expectCorners(polygons(ctx, '#ef6c00')[0], palm!, t);
    const fingers = polygons(ctx, FINGER_FILL);
    expectCorners(fingers[0], left!, t);
    expectCorners(fingers[1], right!, t);
    // Turned to +y (up the canvas): the fingers are 60 + 12 mm apart along the canvas's x axis,
    // the left one (the gripper's +y) on the canvas's left.
    const cx = (c: [number, number][]) => c.reduce((a, p) => a + p[0], 0) / 4;
    expect(cx(fingers[1]!) - cx(fingers[0]!)).toBeCloseTo(0.072 * t.scale, 6);
    // The sliders come after the gripper's four entries: the target box is moved to (0.1, 0.05)
    // and the cylinder drawn at (0, 0.05).
    const [tx, ty] = toCanvas(t, 0.1, 0.05);
    const moved = ctx.calls('translate').map((o) => o.args as number[]);
    expect(moved.some(([x, y]) => Math.hypot(x! - tx, y! - ty) < 1e-6)).toBe(true);
    const [cx0, cy0] = toCanvas(t, 0, 0.05);
    expect(ctx.discs('#1565c0').some(([x, y]) => Math.hypot(x - cx0, y - cy0) < 1e-6)).toBe(true);
  });

  it('marks the target of a grasp goal, and draws no goal region', () => {
    const s = state(
      [-0.3, 0, 0, 0.14],
      [
        [0.12, 0.08, 0],
        [0, 0.05, 0],
        [0.1, -0.12, 0.5],
      ],
    );
    const { ctx, t } = draw({ state: s });
    const rings = ctx.painted.filter((p) => p.op === 'stroke' && p.style === TARGET_COLOUR);
    expect(rings).toHaveLength(1);
    const arc = rings[0]!.path.find((q) => q.kind === 'arc')!;
    const [x, y] = toCanvas(t, 0.12, 0.08);
    expect(arc.args[0]).toBeCloseTo(x, 6);
    expect(arc.args[1]).toBeCloseTo(y, 6);
    // Clear of the 60 mm box's corners.
    expect(arc.args[2]).toBeGreaterThan((Math.hypot(0.06, 0.06) / 2) * t.scale);
    expect(ctx.painted.some((p) => p.style === '#2e7d32')).toBe(false);
    const texts = ctx.texts().map((l) => l.text);
    expect(texts).toContain('target (TARGET)');
    expect(texts).toContain('Parallel gripper');
    expect(texts).not.toContain('GOAL');
  });
});
