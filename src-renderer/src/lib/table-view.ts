/**
 * The top-down view's geometry: table frame (metres, x right, y up, origin at the table centre)
 * to canvas pixels (y down), fitted with a margin, and hit-testing for dragging.
 */
import { moveRobotStart, robotStart } from '#contract/end-effector/registry';
import { toolReach } from '#contract/jog-path';
import type { Scene, Shape } from '#contract/scene';
import { boundingRadius } from '#contract/scene';
import { roundLength } from './units';

export interface ViewTransform {
  scale: number; // px per metre
  cx: number;
  cy: number;
}

/** A rectangle in the table frame, m. */
export interface TableBounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/**
 * Fits a table-frame rectangle (the table and whatever of the lab lies around it: the robot base,
 * the motion-capture origin) into the canvas with a margin, centred.
 */
export function fitBounds(b: TableBounds, width: number, height: number, margin = 24): ViewTransform {
  const scale = Math.max(
    1e-6,
    Math.min((width - 2 * margin) / (b.maxX - b.minX), (height - 2 * margin) / (b.maxY - b.minY)),
  );
  return {
    scale,
    cx: width / 2 - ((b.minX + b.maxX) / 2) * scale,
    cy: height / 2 + ((b.minY + b.maxY) / 2) * scale,
  };
}

/** The smallest rectangle holding all the given ones. */
export function unionBounds(...all: TableBounds[]): TableBounds {
  return {
    minX: Math.min(...all.map((b) => b.minX)),
    maxX: Math.max(...all.map((b) => b.maxX)),
    minY: Math.min(...all.map((b) => b.minY)),
    maxY: Math.max(...all.map((b) => b.maxY)),
  };
}

/** A table (full extents, centred on the origin) as a rectangle. */
export function tableBounds(size: { x: number; y: number }): TableBounds {
  return { minX: -size.x / 2, maxX: size.x / 2, minY: -size.y / 2, maxY: size.y / 2 };
}

export function toCanvas(t: ViewTransform, x: number, y: number): [number, number] {
  return [t.cx + x * t.scale, t.cy - y * t.scale];
}

export function toTable(t: ViewTransform, px: number, py: number): [number, number] {
  return [(px - t.cx) / t.scale, (t.cy - py) / t.scale];
}

export type DragTarget =
  | { kind: 'slider'; index: number }
  | { kind: 'obstacle'; index: number }
  | { kind: 'goal' }
  | { kind: 'pusher' };

function within(x: number, y: number, cx: number, cy: number, r: number): boolean {
  return Math.hypot(x - cx, y - cy) <= r;
}

/** The object under a table-frame point, topmost first (pusher, sliders, obstacles, goal). */
export function hitTest(scene: Scene, x: number, y: number): DragTarget | null {
  const start = robotStart(scene);
  if (within(x, y, start.x, start.y, toolReach(scene))) return { kind: 'pusher' };
  const shapeHit = (shape: Shape, p: { x: number; y: number }) =>
    within(x, y, p.x, p.y, boundingRadius(shape));
  const s = scene.sliders.findIndex((sl) => shapeHit(sl.shape, sl.pose));
  if (s >= 0) return { kind: 'slider', index: s };
  const o = scene.obstacles.findIndex((ob) => shapeHit(ob.shape, ob.pose));
  if (o >= 0) return { kind: 'obstacle', index: o };
  if (within(x, y, scene.goal.center.x, scene.goal.center.y, scene.goal.radius)) return { kind: 'goal' };
  return null;
}

/** A copy of the scene with the target moved to (x, y), table frame, rounded to 0.1 mm. */
export function moveTo(scene: Scene, target: DragTarget, px: number, py: number): Scene {
  const next = plainCopy(scene);
  const x = roundLength(px);
  const y = roundLength(py);
  switch (target.kind) {
    case 'pusher':
      moveRobotStart(next, { x, y });
      break;
    case 'goal':
      next.goal.center = { x, y };
      break;
    case 'slider':
      next.sliders[target.index]!.pose = { ...next.sliders[target.index]!.pose, x, y };
      break;
    case 'obstacle':
      next.obstacles[target.index]!.pose = { ...next.obstacles[target.index]!.pose, x, y };
      break;
  }
  return next;
}

/** Svelte state proxies cannot be structured-cloned; a JSON round trip gives a plain copy. */
export function plainCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
