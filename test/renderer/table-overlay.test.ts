/**
 * The table view's lab marks (issue 17), drawn on a context that records every call: a scale bar
 * in round millimetres, the table's axes, the workspace outline, the UR5 base and the motion-
 * capture frame where the setup puts them, all inside the canvas; the view is fitted around them.
 */
import { describe, expect, it } from 'vitest';
import { describeView, drawTable } from '../../src-renderer/src/lib/draw-table';
import { labBounds, ROBOT_BASE_RADIUS, scaleBar } from '../../src-renderer/src/lib/lab-overlay';
import { fitBounds, toCanvas, toTable } from '../../src-renderer/src/lib/table-view';
import { referenceScene } from '../helpers/scenes';
import { sampleLab } from '../session/sample-messages';
import type { LabSetupView } from '#contract/lab-view';

const scene = referenceScene('isrr-obstacle');
/** The virtual lab's setup: the base 0.5 m along the table's y, the mocap origin at (0.4, -0.2). */
const setup: LabSetupView = {
  ...sampleLab.setup!,
  table: { x: scene.table.size.x, y: scene.table.size.y },
  robotBase: { x: 0, y: 0.5, yaw: 0 },
  mocapFrame: { x: 0.4, y: -0.2, yaw: 0.3 },
};

interface Call {
  name: string;
  args: unknown[];
}

/** A 2D context that records calls and measures text at 7 px a character. */
function recordingContext(): { ctx: CanvasRenderingContext2D; calls: Call[] } {
  const calls: Call[] = [];
  const state: Record<string | symbol, unknown> = {};
  const ctx = new Proxy(state, {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (prop === 'measureText') return (text: string) => ({ width: text.length * 7 });
      return (...args: unknown[]) => calls.push({ name: String(prop), args });
    },
    set(target, prop, value) {
      target[prop] = value;
      return true;
    },
  }) as unknown as CanvasRenderingContext2D;
  return { ctx, calls };
}

const texts = (calls: Call[]) => calls.filter((c) => c.name === 'fillText').map((c) => String(c.args[0]));

describe('table view: the lab around the scene', () => {
  it('picks a round scale bar of about 60 to 150 px', () => {
    expect(scaleBar(1000)).toEqual({ mm: 100, px: 100 });
    expect(scaleBar(600)).toEqual({ mm: 200, px: 120 });
    expect(scaleBar(3000)).toEqual({ mm: 50, px: 150 });
    for (const scale of [250, 480, 777, 1234, 2500])
      expect([10, 20, 50, 100, 200, 500, 1000, 2000]).toContain(scaleBar(scale).mm);
  });

  it('fits the view around the table, the robot base and the motion-capture origin', () => {
    const b = labBounds(scene, setup);
    expect(b.maxY).toBeCloseTo(0.5 + ROBOT_BASE_RADIUS * 1.2);
    expect(b.minY).toBeCloseTo(-0.4);
    const t = fitBounds(b, 800, 600);
    for (const [x, y] of [
      [b.minX, b.minY],
      [b.maxX, b.maxY],
    ] as const) {
      const [px, py] = toCanvas(t, x, y);
      expect(px).toBeGreaterThanOrEqual(23.9);
      expect(px).toBeLessThanOrEqual(776.1);
      expect(py).toBeGreaterThanOrEqual(23.9);
      expect(py).toBeLessThanOrEqual(576.1);
      const [tx, ty] = toTable(t, px, py);
      expect(tx).toBeCloseTo(x);
      expect(ty).toBeCloseTo(y);
    }
  });

  it('draws and names the scale bar, axes, workspace, robot base and mocap frame inside the canvas', () => {
    const { ctx, calls } = recordingContext();
    const t = drawTable(ctx, 800, 600, scene, {
      step: null,
      state: null,
      executedPath: [],
      showRollouts: false,
      setup,
    });
    const words = texts(calls);
    expect(words).toContain(`${scaleBar(t.scale).mm} mm`);
    for (const w of ['UR5 base', 'mocap', 'x', 'y', 'workspace (30 mm margin)']) expect(words).toContain(w);
    // Every piece of text is drawn inside the canvas.
    for (const c of calls.filter((c) => c.name === 'fillText')) {
      const [, x, y] = c.args as [string, number, number];
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(800);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(600);
    }
    // The robot base: a disc of the base's size where the setup puts it.
    const [bx, by] = toCanvas(t, 0, 0.5);
    const disc = calls.find(
      (c) =>
        c.name === 'arc' &&
        Math.abs((c.args[0] as number) - bx) < 0.01 &&
        Math.abs((c.args[1] as number) - by) < 0.01,
    );
    expect(disc?.args[2]).toBeCloseTo(ROBOT_BASE_RADIUS * t.scale);
    // The workspace: the scene's table 30 mm in from each edge, dashed.
    const [wx, wy] = toCanvas(t, -scene.table.size.x / 2 + 0.03, scene.table.size.y / 2 - 0.03);
    const outline = calls.find(
      (c) =>
        c.name === 'strokeRect' &&
        Math.abs((c.args[0] as number) - wx) < 0.01 &&
        Math.abs((c.args[1] as number) - wy) < 0.01,
    );
    expect(outline).toBeDefined();
    expect(describeView(scene, null, null, setup)).toContain(
      'workspace 30 mm inside the table edges; robot base at (0, 500) mm; motion-capture origin at (400, -200) mm',
    );
  });

  it('still draws the table axes and the scale bar without a lab', () => {
    const { ctx, calls } = recordingContext();
    drawTable(ctx, 640, 480, scene, { step: null, state: null, executedPath: [], showRollouts: false });
    const words = texts(calls);
    expect(words.some((w) => /^\d+ mm$/.test(w))).toBe(true);
    expect(words).toContain('x');
    expect(words).not.toContain('UR5 base');
  });
});
