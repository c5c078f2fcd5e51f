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
import type { Scene, Shape } from '#contract/scene';
import type { TableShape } from '#contract/table-region';
import { signedDistance, segmentsTouch, type Vertex } from '#contract/polygon';

/** A body's outline seen from above: a disc, or a rectangle of half extents hx, hy about its centre. */
export type GuardShape = { kind: 'disc'; radius: number } | { kind: 'rect'; hx: number; hy: number };

export interface PlacedShape {
  shape: GuardShape;
  x: number;
  y: number;
  theta: number;
}

export interface SceneGuard {
  obstacles: (PlacedShape & { id: string })[];
  /** The table top: an object whose centre leaves it tips over the edge. */
  table: TableShape;
  /** The pusher's disc radius (m); absent for a gripper, whose footprint the supervisor holds. */
  pusherRadius?: number;
  /** The tracked objects' outlines, by the scene's slider id. */
  sliders: { id: string; shape: GuardShape }[];
  /** Distance the pusher's (or a gripper's) lookahead must keep from every obstacle (m). */
  clearance: number;
}

/**
 * Default clearance (m): 5 mm, a tenth of the isrr-obstacle object's radius; enough to absorb the
 * calibration drift the supervisor tolerates, small enough not to block the paths the planner's
 * obstacle costs already keep clear.
 */
export const DEFAULT_CLEARANCE = 0.005;

export function guardShape(shape: Shape): GuardShape {
  return shape.kind === 'cylinder'
    ? { kind: 'disc', radius: shape.radius }
    : { kind: 'rect', hx: shape.sizeX / 2, hy: shape.sizeY / 2 };
}

/** The guard of a scene: its obstacles, table and objects, and the clearance. */
export function sceneGuardFor(
  scene: Pick<Scene, 'obstacles' | 'table' | 'pusher' | 'sliders'>,
  clearance = DEFAULT_CLEARANCE,
): SceneGuard {
  return {
    obstacles: scene.obstacles.map((o) => ({ id: o.id, shape: guardShape(o.shape), ...o.pose })),
    table: {
      size: { x: scene.table.size.x, y: scene.table.size.y },
      ...(scene.table.outline ? { outline: scene.table.outline.map((p) => ({ x: p.x, y: p.y })) } : {}),
    },
    ...(scene.pusher ? { pusherRadius: scene.pusher.radius } : {}),
    sliders: scene.sliders.map((s) => ({ id: s.id, shape: guardShape(s.shape) })),
    clearance,
  };
}

/** The corners of a placed rectangle, counter-clockwise. */
function corners(p: PlacedShape & { shape: { kind: 'rect' } }): Vertex[] {
  const c = Math.cos(p.theta);
  const s = Math.sin(p.theta);
  const { hx, hy } = p.shape;
  return [
    [hx, hy],
    [-hx, hy],
    [-hx, -hy],
    [hx, -hy],
  ].map(([a, b]) => ({ x: p.x + c * a! - s * b!, y: p.y + s * a! + c * b! }));
}

/** Signed distance of a point from a placed shape's boundary (m): negative inside. */
export function pointGap(o: PlacedShape, x: number, y: number): number {
  if (o.shape.kind === 'disc') return Math.hypot(x - o.x, y - o.y) - o.shape.radius;
  return signedDistance(corners(o as PlacedShape & { shape: { kind: 'rect' } }), x, y);
}

function pointSegmentDistance(p: Vertex, a: Vertex, b: Vertex): number {
  const ex = b.x - a.x;
  const ey = b.y - a.y;
  const len2 = ex * ex + ey * ey;
  const f = len2 > 0 ? Math.min(1, Math.max(0, ((p.x - a.x) * ex + (p.y - a.y) * ey) / len2)) : 0;
  return Math.hypot(p.x - a.x - f * ex, p.y - a.y - f * ey);
}

/**
 * Smallest signed distance from the segment a-b to a placed shape (m): negative (or 0) when the
 * segment enters it. A disc swept along the segment touches the shape when this is below its radius.
 */
export function segmentGap(o: PlacedShape, a: Vertex, b: Vertex): number {
  if (o.shape.kind === 'disc') return pointSegmentDistance(o, a, b) - o.shape.radius;
  const poly = corners(o as PlacedShape & { shape: { kind: 'rect' } });
  const ends = Math.min(signedDistance(poly, a.x, a.y), signedDistance(poly, b.x, b.y));
  if (ends <= 0) return ends;
  for (let i = 0; i < poly.length; i++)
    if (segmentsTouch(a, b, poly[i]!, poly[(i + 1) % poly.length]!)) return 0;
  return Math.min(ends, ...poly.map((v) => pointSegmentDistance(v, a, b)));
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

/** The obstacle a placed body comes closest to, and the gap (m; negative: inside it by that much). */
export function nearestObstacle(
  guard: Pick<SceneGuard, 'obstacles'>,
  body: PlacedShape,
): { id: string; gap: number } | null {
  let best: { id: string; gap: number } | null = null;
  for (const o of guard.obstacles) {
    const gap = shapeGap(body, o);
    // `!(gap >= best.gap)` keeps a NaN gap: a body nobody can place is never "clear".
    if (best === null || !(gap >= best.gap)) best = { id: o.id, gap };
  }
  return best;
}
