/**
 * What the table view draws of the lab around the scene, so the operator can read distances and
 * frames off it: a scale bar in mm, the table's axes at its origin, the workspace the supervisor
 * keeps the tool in (the scene's table shrunk by the setup's margin), the lab's physical table
 * where it differs from the scene's, the UR5 base and the motion-capture frame's axes, where the
 * setup's calibrations put them. Each mark has a label or a dash pattern, not colour alone.
 */
import type { LabSetupView, PlanarFrame } from '#contract/lab-view';
import type { Scene } from '#contract/scene';
import type { Box, LabelRequest } from './label-layout';
import { tableBounds, toCanvas, unionBounds, type TableBounds, type ViewTransform } from './table-view';

/** Radius of the UR5's base, m (its flange is 149 mm across). */
export const ROBOT_BASE_RADIUS = 0.075;
/** Length of the table's axes and of the motion-capture frame's, m. */
const TABLE_AXIS = 0.1;
const MOCAP_AXIS = 0.08;

export const LAB_STYLE = {
  axes: '#37474f',
  workspace: { colour: '#6d4c41', dash: [8, 4] },
  labTable: { colour: '#8d6e63', dash: [2, 4] },
  base: { fill: 'rgba(84, 110, 122, 0.35)', stroke: '#37474f' },
  mocap: '#00838f',
};

/** The part of the table frame the view shows: the scene's table, and the lab around it. */
export function labBounds(scene: Scene, setup: LabSetupView | null): TableBounds {
  const table = tableBounds(scene.table.size);
  if (!setup) return table;
  const around = (f: PlanarFrame, r: number): TableBounds => ({
    minX: f.x - r,
    maxX: f.x + r,
    minY: f.y - r,
    maxY: f.y + r,
  });
  return unionBounds(
    table,
    tableBounds(setup.table),
    around(setup.robotBase, ROBOT_BASE_RADIUS * 1.2),
    around(setup.mocapFrame, MOCAP_AXIS),
  );
}

/** The scale bar for a view: a round length in mm, about 60 to 150 px long. */
export function scaleBar(pxPerMetre: number): { mm: number; px: number } {
  const lengths = [10, 20, 50, 100, 200, 500, 1000, 2000];
  let mm = lengths[0]!;
  for (const l of lengths) if ((l / 1000) * pxPerMetre <= 150) mm = l;
  return { mm, px: (mm / 1000) * pxPerMetre };
}

/** The table's axes at its origin (under the objects). */
export function drawTableAxes(ctx: CanvasRenderingContext2D, t: ViewTransform, labels: LabelRequest[]): void {
  const origin = toCanvas(t, 0, 0);
  const x = toCanvas(t, TABLE_AXIS, 0);
  const y = toCanvas(t, 0, TABLE_AXIS);
  arrow(ctx, origin, x, LAB_STYLE.axes, []);
  arrow(ctx, origin, y, LAB_STYLE.axes, []);
  labels.push(
    { text: 'x', anchor: x, offset: [10, 0], colour: LAB_STYLE.axes },
    { text: 'y', anchor: y, offset: [0, -10], colour: LAB_STYLE.axes },
  );
}

/**
 * The workspace outline (dashed) and, when the lab's physical table is not the scene's, its
 * outline (dotted); both under the objects.
 */
export function drawWorkspace(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  scene: Scene,
  setup: LabSetupView,
  labels: LabelRequest[],
): void {
  const m = setup.workspaceMargin;
  const hx = scene.table.size.x / 2 - m;
  const hy = scene.table.size.y / 2 - m;
  if (hx > 0 && hy > 0) {
    const [x0, y0] = toCanvas(t, -hx, hy);
    ctx.strokeStyle = LAB_STYLE.workspace.colour;
    ctx.lineWidth = 1.5;
    ctx.setLineDash(LAB_STYLE.workspace.dash);
    ctx.strokeRect(x0, y0, 2 * hx * t.scale, 2 * hy * t.scale);
    ctx.setLineDash([]);
    const text = `workspace (${Math.round(m * 1000)} mm margin)`;
    ctx.font = '600 12px system-ui, sans-serif';
    labels.push({
      text,
      anchor: [x0, y0],
      // Just inside the outline's top-left corner.
      offset: [ctx.measureText(text).width / 2 + 6, 11],
      colour: LAB_STYLE.workspace.colour,
    });
  }
  const same =
    Math.abs(setup.table.x - scene.table.size.x) < 1e-6 &&
    Math.abs(setup.table.y - scene.table.size.y) < 1e-6;
  if (!same) {
    const [x0, y0] = toCanvas(t, -setup.table.x / 2, setup.table.y / 2);
    ctx.strokeStyle = LAB_STYLE.labTable.colour;
    ctx.lineWidth = 1.5;
    ctx.setLineDash(LAB_STYLE.labTable.dash);
    ctx.strokeRect(x0, y0, setup.table.x * t.scale, setup.table.y * t.scale);
    ctx.setLineDash([]);
    labels.push({
      text: 'lab table',
      anchor: [x0, y0],
      offset: [30, -10],
      colour: LAB_STYLE.labTable.colour,
    });
  }
}

/** The motion-capture frame's origin and axes (under the objects). */
export function drawMocapFrame(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  f: PlanarFrame,
  labels: LabelRequest[],
): void {
  const origin = toCanvas(t, f.x, f.y);
  const x = toCanvas(t, f.x + MOCAP_AXIS * Math.cos(f.yaw), f.y + MOCAP_AXIS * Math.sin(f.yaw));
  const y = toCanvas(t, f.x - MOCAP_AXIS * Math.sin(f.yaw), f.y + MOCAP_AXIS * Math.cos(f.yaw));
  arrow(ctx, origin, x, LAB_STYLE.mocap, []);
  arrow(ctx, origin, y, LAB_STYLE.mocap, [4, 3]);
  ctx.fillStyle = LAB_STYLE.mocap;
  ctx.beginPath();
  ctx.arc(origin[0], origin[1], 3, 0, 2 * Math.PI);
  ctx.fill();
  labels.push(
    { text: 'mocap', anchor: origin, offset: [-22, 12], colour: LAB_STYLE.mocap },
    { text: 'x', anchor: x, offset: [9, 0], colour: LAB_STYLE.mocap },
    { text: 'y', anchor: y, offset: [0, -9], colour: LAB_STYLE.mocap },
  );
}

/** The UR5 base: a disc the size of its flange, with a tick along the base's x axis. */
export function drawRobotBase(
  ctx: CanvasRenderingContext2D,
  t: ViewTransform,
  f: PlanarFrame,
  labels: LabelRequest[],
  avoid: Box[],
): void {
  const [bx, by] = toCanvas(t, f.x, f.y);
  const r = Math.max(4, ROBOT_BASE_RADIUS * t.scale);
  ctx.fillStyle = LAB_STYLE.base.fill;
  ctx.strokeStyle = LAB_STYLE.base.stroke;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(bx, by, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(bx, by);
  ctx.lineTo(bx + r * Math.cos(f.yaw), by - r * Math.sin(f.yaw));
  ctx.stroke();
  avoid.push({ x: bx - r, y: by - r, w: 2 * r, h: 2 * r });
  labels.push({ text: 'UR5 base', anchor: [bx, by], offset: [0, -r - 10], colour: LAB_STYLE.base.stroke });
}

/** The scale bar in the view's bottom-left corner, on a light box; returns that box. */
export function drawScaleBar(ctx: CanvasRenderingContext2D, t: ViewTransform, height: number): Box {
  const bar = scaleBar(t.scale);
  const text = `${bar.mm} mm`;
  ctx.font = '600 12px system-ui, sans-serif';
  const w = Math.max(bar.px, ctx.measureText(text).width) + 12;
  const box: Box = { x: 6, y: height - 34, w, h: 28 };
  ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
  ctx.fillRect(box.x, box.y, box.w, box.h);
  const x0 = box.x + 6;
  const y = box.y + box.h - 7;
  ctx.strokeStyle = '#212121';
  ctx.lineWidth = 2;
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.moveTo(x0, y - 5);
  ctx.lineTo(x0, y);
  ctx.lineTo(x0 + bar.px, y);
  ctx.lineTo(x0 + bar.px, y - 5);
  ctx.stroke();
  ctx.fillStyle = '#212121';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  ctx.fillText(text, x0, y - 7);
  return box;
}

/** The lab's marks in words (for screen readers and tests). */
export function describeLab(setup: LabSetupView | null): string[] {
  if (!setup) return [];
  const mm = (v: number) => Math.round(v * 1000);
  const at = (f: PlanarFrame) => `(${mm(f.x)}, ${mm(f.y)}) mm`;
  return [
    `workspace ${mm(setup.workspaceMargin)} mm inside the table edges`,
    `robot base at ${at(setup.robotBase)}`,
    `motion-capture origin at ${at(setup.mocapFrame)}`,
  ];
}

function arrow(
  ctx: CanvasRenderingContext2D,
  from: [number, number],
  to: [number, number],
  colour: string,
  dash: number[],
): void {
  const angle = Math.atan2(to[1] - from[1], to[0] - from[0]);
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 2;
  ctx.setLineDash(dash);
  ctx.beginPath();
  ctx.moveTo(from[0], from[1]);
  ctx.lineTo(to[0], to[1]);
  ctx.stroke();
  ctx.setLineDash([]);
  const head = 7;
  ctx.beginPath();
  ctx.moveTo(to[0], to[1]);
  ctx.lineTo(to[0] - head * Math.cos(angle - 0.4), to[1] - head * Math.sin(angle - 0.4));
  ctx.lineTo(to[0] - head * Math.cos(angle + 0.4), to[1] - head * Math.sin(angle + 0.4));
  ctx.closePath();
  ctx.fill();
}
