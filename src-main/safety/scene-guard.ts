/**
 * The scene as a safety limit: the obstacles (regions nothing may enter), the table top (objects
 * must stay on it) and the tracked objects' outlines, as plain data the supervisor holds. The
 * planner's costs keep plans away from obstacles; this is what holds when a task file leaves those
 * costs out or a plan goes wrong: the supervisor refuses a command that takes the pusher within
 * the clearance of an obstacle, and stops when motion capture shows anything touching one or an
 * object leaving the table (safety/supervisor.ts).
 *
 * Plain data only (no scene objects, no functions), so the same guard can be handed to a
 * supervisor in another thread. Geometry in the table frame, metres and radians.
 */
import { LOOKAHEAD_CLEARANCE } from '#contract/safety-limits';
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { TableShape } from '#contract/table-region';
import type { Vertex } from '#contract/polygon';
import {
  guardShape,
  placedCorners as corners,
  pointGap,
  pointSegmentDistance,
  type GuardShape,
  type PlacedShape,
} from '#contract/footprint';

// The footprints' geometry lives in the contract, shared with the console's jog check.
export { guardShape, pointGap, segmentGap, type GuardShape, type PlacedShape } from '#contract/footprint';

export interface SceneGuard {
  obstacles: (PlacedShape & { id: string })[];
  /** The table top: an object whose centre leaves it tips over the edge. */
  table: TableShape;
  /**
   * The robot's body (its tool's: contract/end-effector): its word in stop reasons, and a disc's
   * radius about the tool point (m) or its outline's corners in its own frame (m, x forward),
   * which turns with it. Absent: a point.
   */
  robot?: { name: string; radius: number; outline: { x: number; y: number }[] };
  /** The tracked objects' outlines, by the scene's slider id. */
  sliders: { id: string; shape: GuardShape }[];
  /** Distance the pusher's (or a gripper's) lookahead must keep from every obstacle (m). */
  clearance: number;
}

/** The guard of a scene: its obstacles, table and objects, and the lookahead's clearance. */
export function sceneGuardFor(
  scene: ToolEntries & Pick<Scene, 'obstacles' | 'table' | 'sliders'>,
  clearance = LOOKAHEAD_CLEARANCE,
): SceneGuard {
  const tool = endEffectorOf(scene);
  return {
    obstacles: scene.obstacles.map((o) => ({ id: o.id, shape: guardShape(o.shape), ...o.pose })),
    table: {
      size: { x: scene.table.size.x, y: scene.table.size.y },
      ...(scene.table.outline ? { outline: scene.table.outline.map((p) => ({ x: p.x, y: p.y })) } : {}),
    },
    robot: {
      name: tool.title,
      radius: tool.discRadius ?? 0,
      outline: tool.outline.map((p) => ({ x: p.x, y: p.y })),
    },
    sliders: scene.sliders.map((s) => ({ id: s.id, shape: guardShape(s.shape) })),
    clearance,
  };
}

/** Projection interval of a convex polygon on an axis. */
function project(poly: Vertex[], ax: number, ay: number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of poly) {
    const d = v.x * ax + v.y * ay;
    lo = Math.min(lo, d);
    hi = Math.max(hi, d);
  }
  return [lo, hi];
}

/**
 * Gap between two placed shapes (m): their distance apart, or minus how deep they overlap
 * (separating axes for two rectangles; exact for discs and disc against rectangle).
 */
export function shapeGap(a: PlacedShape, b: PlacedShape): number {
  if (a.shape.kind === 'disc') return pointGap(b, a.x, a.y) - a.shape.radius;
  if (b.shape.kind === 'disc') return pointGap(a, b.x, b.y) - b.shape.radius;
  const pa = corners(a as PlacedShape & { shape: { kind: 'rect' } });
  const pb = corners(b as PlacedShape & { shape: { kind: 'rect' } });
  let separation = -Infinity;
  for (const poly of [pa, pb]) {
    for (let i = 0; i < poly.length; i++) {
      const p = poly[i]!;
      const q = poly[(i + 1) % poly.length]!;
      const len = Math.hypot(q.x - p.x, q.y - p.y);
      const ax = (q.y - p.y) / len;
      const ay = -(q.x - p.x) / len;
      const [l1, h1] = project(pa, ax, ay);
      const [l2, h2] = project(pb, ax, ay);
      separation = Math.max(separation, l2 - h1, l1 - h2);
    }
  }
  if (separation <= 0) return separation;
  // Apart: the nearest points are a corner of one and an edge of the other.
  let d = Infinity;
  for (const [from, to] of [
    [pa, pb],
    [pb, pa],
  ] as const)
    for (const v of from)
      for (let i = 0; i < to.length; i++)
        d = Math.min(d, pointSegmentDistance(v, to[i]!, to[(i + 1) % to.length]!));
  return d;
}
