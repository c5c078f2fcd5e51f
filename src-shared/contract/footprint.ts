/**
 * Footprints on the table seen from above: a disc or a rectangle placed at a pose, and how far a
 * point or a straight path is from one. The supervisor's scene guard (src-main/safety/
 * scene-guard.ts) judges commands with these and the console's jog judges its path with them
 * (jog-path.ts), so the two agree on what touches what. Table frame, metres and radians.
 */
import type { Shape } from './scene';
import { segmentsTouch, signedDistance, type Vertex } from './polygon';

/** A body's outline seen from above: a disc, or a rectangle of half extents hx, hy about its centre. */
export type GuardShape = { kind: 'disc'; radius: number } | { kind: 'rect'; hx: number; hy: number };

export interface PlacedShape {
  shape: GuardShape;
  x: number;
  y: number;
  theta: number;
}

/** A scene shape's outline from above (a cylinder's disc, a box's rectangle). */
export function guardShape(shape: Shape): GuardShape {
  return shape.kind === 'cylinder'
    ? { kind: 'disc', radius: shape.radius }
    : { kind: 'rect', hx: shape.sizeX / 2, hy: shape.sizeY / 2 };
}

/** The corners of a placed rectangle, counter-clockwise. */
export function placedCorners(p: PlacedShape & { shape: { kind: 'rect' } }): Vertex[] {
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
  return signedDistance(placedCorners(o as PlacedShape & { shape: { kind: 'rect' } }), x, y);
}

export function pointSegmentDistance(p: Vertex, a: Vertex, b: Vertex): number {
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
  const poly = placedCorners(o as PlacedShape & { shape: { kind: 'rect' } });
  const ends = Math.min(signedDistance(poly, a.x, a.y), signedDistance(poly, b.x, b.y));
  if (ends <= 0) return ends;
  for (let i = 0; i < poly.length; i++)
    if (segmentsTouch(a, b, poly[i]!, poly[(i + 1) % poly.length]!)) return 0;
  return Math.min(ends, ...poly.map((v) => pointSegmentDistance(v, a, b)));
}
