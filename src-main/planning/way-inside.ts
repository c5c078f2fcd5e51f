/**
 * The shortest way for a point between two places on a table with an outline that keeps a margin
 * from the outline's inner (reflex) corners: a straight line where it stays on the table side of
 * every such corner, else tangent, arc, tangent round the corner's disc on the table side.
 *
 * Why the goal terms and TAMPC's candidates use it: on an L-shaped table the straight line from
 * the first leg to the goal in the other leg crosses the cut-out corner, and the straight goal
 * distance falls towards it. In the 30-scene wafr-l-shape experiment every off-table failure of
 * the three planners but one left the table within a control, the object's states at the
 * control's ends both on the table (docs/planner.md): pushes aimed straight at the goal from the
 * first leg, across the cut-out. Measured round the corner, progress along the first leg is
 * progress, and a push across the cut-out is no shorter way.
 *
 * On a convex outline (and on a table without one) there is no inner corner and the way is the
 * straight line.
 */
import type { Vertex } from '#contract/polygon';
import type { Disc, Point } from './way-round';

/** An inner corner of the outline: the disc the way keeps out of, and its table-side angles. */
export interface Corner extends Disc {
  /** Direction (rad) of the edge to the next vertex, from which table-side angles are counted (counter-clockwise). */
  base: number;
  /** The table-side (interior) angle at the corner (rad, more than pi). */
  interior: number;
}

const TWO_PI = 2 * Math.PI;

/** The outline's reflex corners (outline counter-clockwise, as the scene check requires), each a disc of radius `margin`. */
export function innerCorners(outline: readonly Vertex[] | undefined, margin: number): Corner[] {
  if (!outline) return [];
  const corners: Corner[] = [];
  const n = outline.length;
  for (let i = 0; i < n; i++) {
    const p = outline[(i + n - 1) % n]!;
    const v = outline[i]!;
    const q = outline[(i + 1) % n]!;
    // A right turn at v in a counter-clockwise outline: the table wraps round v by more than pi.
    const cross = (v.x - p.x) * (q.y - v.y) - (v.y - p.y) * (q.x - v.x);
    if (cross >= 0) continue;
    const base = Math.atan2(q.y - v.y, q.x - v.x);
    const interior = ccw(base, Math.atan2(p.y - v.y, p.x - v.x));
    corners.push({ x: v.x, y: v.y, r: margin, base, interior });
  }
  return corners;
}

/** Counter-clockwise angle from direction `from` to direction `to`, in [0, 2 pi). */
function ccw(from: number, to: number): number {
  const d = (to - from) % TWO_PI;
  return d < 0 ? d + TWO_PI : d;
}

/**
 * The table-side angle of point a about corner c. A point off the table in the corner's outer
 * wedge counts as on the nearer of the wedge's two edges, so the way from it is continuous with
 * the way from the table just beside it.
 */
function tableSideAngle(a: Point, c: Corner): number {
  const psi = ccw(c.base, Math.atan2(a.y - c.y, a.x - c.x));
  if (psi <= c.interior) return psi;
  return psi - c.interior < TWO_PI - psi ? c.interior : 0;
}

/** Length of the way from a to b round corner c on the table side, or null when the straight line keeps clear of it. */
function detourLength(a: Point, b: Point, c: Corner): number | null {
  const da = Math.hypot(a.x - c.x, a.y - c.y);
  const db = Math.hypot(b.x - c.x, b.y - c.y);
  // A point inside the disc counts as on its rim, as in way-round.ts.
  const ra = Math.max(da, c.r);
  const rb = Math.max(db, c.r);
  const phi = Math.abs(tableSideAngle(a, c) - tableSideAngle(b, c));
  // The line a-b passes the corner on the table side and keeps c.r from it exactly when the
  // table-side angle is within the two tangent angles; beyond pi it passes on the outer side.
  const arc = phi - Math.acos(c.r / ra) - Math.acos(c.r / rb);
  if (arc <= 0) return null;
  return Math.sqrt(ra * ra - c.r * c.r) + Math.sqrt(rb * rb - c.r * c.r) + c.r * arc;
}

/** The inner corner whose way round is longest from a to b, with that length, or null when no corner is in the way. */
function worstCorner(
  a: Point,
  b: Point,
  corners: readonly Corner[],
): { corner: Corner; length: number } | null {
  let worst: { corner: Corner; length: number } | null = null;
  for (const c of corners) {
    const length = detourLength(a, b, c);
    if (length !== null && (!worst || length > worst.length)) worst = { corner: c, length };
  }
  return worst;
}

/**
 * Length of the way from a to b inside the table: the straight distance when no inner corner is in
 * the way; round one corner, exact; round several, the longest single way round (a lower bound,
 * which no shipped table needs: the L has one inner corner, the changing table's two face each
 * other across its strip).
 */
export function wayInsideLength(a: Point, b: Point, corners: readonly Corner[]): number {
  return worstCorner(a, b, corners)?.length ?? Math.hypot(b.x - a.x, b.y - a.y);
}

/** Largest turn (rad) along the rim of a corner's disc to the next waypoint, for an object already on it. */
const RIM_STEP = Math.PI / 4;

/**
 * Where a push from a towards b should head first: b when no inner corner is in the way, else the
 * point where the way round the corner leaves the straight line from a (the tangent point on the
 * table side, turned towards b); from on or inside the corner's disc, a point a little further
 * round its rim.
 */
export function firstWaypoint(a: Point, b: Point, corners: readonly Corner[]): Point {
  const worst = worstCorner(a, b, corners);
  if (!worst) return b;
  const c = worst.corner;
  const psiA = tableSideAngle(a, c);
  const psiB = tableSideAngle(b, c);
  const ra = Math.max(Math.hypot(a.x - c.x, a.y - c.y), c.r);
  const turn = Math.max(Math.acos(c.r / ra), Math.min(RIM_STEP, Math.abs(psiB - psiA)));
  const psi = psiA + Math.sign(psiB - psiA) * turn;
  return { x: c.x + c.r * Math.cos(c.base + psi), y: c.y + c.r * Math.sin(c.base + psi) };
}
