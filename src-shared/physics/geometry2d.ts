/**
 * Planar contact geometry for the coarse model, the infeasible-state projection and the planner's
 * collision checks. Bodies are seen from above: a cylinder is a disc, a box a rectangle.
 */
import type { Shape } from '#contract/scene';

export type Footprint = { kind: 'disc'; radius: number } | { kind: 'rect'; hx: number; hy: number };

export interface Placed {
  footprint: Footprint;
  x: number;
  y: number;
  theta: number;
}

export function footprintOf(shape: Shape): Footprint {
  return shape.kind === 'cylinder'
    ? { kind: 'disc', radius: shape.radius }
    : { kind: 'rect', hx: shape.sizeX / 2, hy: shape.sizeY / 2 };
}

/** Radius of the smallest disc about the body's centre that holds its footprint (m). */
export function footprintReach(f: Footprint): number {
  return f.kind === 'disc' ? f.radius : Math.hypot(f.hx, f.hy);
}

/**
 * How far a footprint turned by theta extends from its centre along the unit direction (dx, dy)
 * (m): its support function.
 */
export function footprintSupport(f: Footprint, theta: number, dx: number, dy: number): number {
  if (f.kind === 'disc') return f.radius;
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  return Math.abs(f.hx * (c * dx + s * dy)) + Math.abs(f.hy * (-s * dx + c * dy));
}

/** Penetration of two bodies: depth > 0 when they overlap; normal is the unit vector from a to b. */
export interface Overlap {
  depth: number;
  nx: number;
  ny: number;
}

/**
 * Signed separation along the best axis: negative depth means the bodies are apart by -depth
 * (exact for disc-disc and disc-rect; for rect-rect the separating-axis gap, a lower bound).
 */
export function overlap(a: Placed, b: Placed): Overlap {
  const fa = a.footprint;
  const fb = b.footprint;
  if (fa.kind === 'disc' && fb.kind === 'disc') return discDisc(a.x, a.y, fa.radius, b.x, b.y, fb.radius);
  if (fa.kind === 'disc' && fb.kind === 'rect') return discRect(a.x, a.y, fa.radius, b, fb);
  if (fa.kind === 'rect' && fb.kind === 'disc') {
    const o = discRect(b.x, b.y, fb.radius, a, fa);
    return { depth: o.depth, nx: -o.nx, ny: -o.ny };
  }
  return rectRect(a, fa as RectFp, b, fb as RectFp);
}

type RectFp = Extract<Footprint, { kind: 'rect' }>;

function discDisc(ax: number, ay: number, ar: number, bx: number, by: number, br: number): Overlap {
  const dx = bx - ax;
  const dy = by - ay;
  const d = Math.hypot(dx, dy);
  // Coincident centres have no defined normal: pick +x so the projection still separates them.
  if (d < 1e-12) return { depth: ar + br, nx: 1, ny: 0 };
  return { depth: ar + br - d, nx: dx / d, ny: dy / d };
}

/** Disc at (cx, cy) against a rectangle; the normal points from the disc to the rectangle. */
function discRect(cx: number, cy: number, r: number, rect: Placed, fp: RectFp): Overlap {
  const c = Math.cos(rect.theta);
  const s = Math.sin(rect.theta);
  // Disc centre in the rectangle's frame.
  const lx = c * (cx - rect.x) + s * (cy - rect.y);
  const ly = -s * (cx - rect.x) + c * (cy - rect.y);
  const inside = Math.abs(lx) <= fp.hx && Math.abs(ly) <= fp.hy;
  let nlx: number;
  let nly: number;
  let depth: number;
  if (!inside) {
    const px = Math.min(Math.max(lx, -fp.hx), fp.hx);
    const py = Math.min(Math.max(ly, -fp.hy), fp.hy);
    const dx = lx - px;
    const dy = ly - py;
    const d = Math.hypot(dx, dy);
    depth = r - d;
    // Normal from the disc towards the rectangle = from the disc centre to its closest point.
    nlx = -dx / d;
    nly = -dy / d;
  } else {
    // Centre inside: leave through the nearest face.
    const ex = fp.hx - Math.abs(lx);
    const ey = fp.hy - Math.abs(ly);
    if (ex < ey) {
      depth = r + ex;
      nlx = lx >= 0 ? -1 : 1;
      nly = 0;
    } else {
      depth = r + ey;
      nlx = 0;
      nly = ly >= 0 ? -1 : 1;
    }
  }
  return { depth, nx: c * nlx - s * nly, ny: s * nlx + c * nly };
}

function rectRect(a: Placed, fa: RectFp, b: Placed, fb: RectFp): Overlap {
  const axes: [number, number][] = [
    [Math.cos(a.theta), Math.sin(a.theta)],
    [-Math.sin(a.theta), Math.cos(a.theta)],
    [Math.cos(b.theta), Math.sin(b.theta)],
    [-Math.sin(b.theta), Math.cos(b.theta)],
  ];
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let best: Overlap = { depth: Infinity, nx: 1, ny: 0 };
  for (const [ux, uy] of axes) {
    const ra = extent(a.theta, fa, ux, uy);
    const rb = extent(b.theta, fb, ux, uy);
    const dist = dx * ux + dy * uy;
    const depth = ra + rb - Math.abs(dist);
    if (depth < best.depth) {
      const sign = dist >= 0 ? 1 : -1;
      best = { depth, nx: sign * ux, ny: sign * uy };
    }
  }
  return best;
}

/** Half-width of a rectangle's projection onto the unit axis (ux, uy). */
function extent(theta: number, fp: RectFp, ux: number, uy: number): number {
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  return fp.hx * Math.abs(c * ux + s * uy) + fp.hy * Math.abs(-s * ux + c * uy);
}

/**
 * Where a disc of radius r moving from p along the segment p + t*d, t in [0, 1], first touches a
 * body; null when it does not within the segment. Returns t = 0 when it already touches.
 */
export function firstTouch(
  px: number,
  py: number,
  dx: number,
  dy: number,
  r: number,
  body: Placed,
): number | null {
  const fp = body.footprint;
  if (fp.kind === 'disc') return segmentCircle(px - body.x, py - body.y, dx, dy, fp.radius + r);
  // Rectangle: work in its frame; the region the moving centre must avoid is the rectangle grown by r.
  const c = Math.cos(body.theta);
  const s = Math.sin(body.theta);
  const lx = c * (px - body.x) + s * (py - body.y);
  const ly = -s * (px - body.x) + c * (py - body.y);
  const ldx = c * dx + s * dy;
  const ldy = -s * dx + c * dy;
  return segmentRoundedRect(lx, ly, ldx, ldy, fp.hx, fp.hy, r);
}

/** First t in [0, 1] at which |p + t d| <= R. */
function segmentCircle(px: number, py: number, dx: number, dy: number, R: number): number | null {
  const c = px * px + py * py - R * R;
  if (c <= 0) return 0;
  const a = dx * dx + dy * dy;
  if (a === 0) return null;
  const b = px * dx + py * dy;
  const disc = b * b - a * c;
  if (disc < 0 || b >= 0) return null;
  const t = (-b - Math.sqrt(disc)) / a;
  return t <= 1 ? t : null;
}

function segmentRoundedRect(
  px: number,
  py: number,
  dx: number,
  dy: number,
  hx: number,
  hy: number,
  r: number,
): number | null {
  const inside = (x: number, y: number): boolean => {
    const ex = Math.max(Math.abs(x) - hx, 0);
    const ey = Math.max(Math.abs(y) - hy, 0);
    return ex * ex + ey * ey <= r * r;
  };
  if (inside(px, py)) return 0;
  // Slab test against the rectangle grown by r (square corners), then correct for rounded corners.
  let tMin = 0;
  let tMax = 1;
  for (const [p, d, h] of [
    [px, dx, hx + r],
    [py, dy, hy + r],
  ] as const) {
    if (d === 0) {
      if (Math.abs(p) > h) return null;
      continue;
    }
    let t1 = (-h - p) / d;
    let t2 = (h - p) / d;
    if (t1 > t2) [t1, t2] = [t2, t1];
    tMin = Math.max(tMin, t1);
    tMax = Math.min(tMax, t2);
    if (tMin > tMax) return null;
  }
  const ex = px + tMin * dx;
  const ey = py + tMin * dy;
  if (Math.abs(ex) <= hx || Math.abs(ey) <= hy) return tMin;
  // Entry through a corner square: the true boundary there is the corner circle.
  let best: number | null = null;
  for (const cx of [-hx, hx]) {
    for (const cy of [-hy, hy]) {
      const t = segmentCircle(px - cx, py - cy, dx, dy, r);
      if (t !== null && (best === null || t < best)) best = t;
    }
  }
  return best;
}

/** Closest point of a body's footprint to the point (qx, qy). */
export function closestPoint(body: Placed, qx: number, qy: number): [number, number] {
  const fp = body.footprint;
  if (fp.kind === 'disc') {
    const dx = qx - body.x;
    const dy = qy - body.y;
    const d = Math.hypot(dx, dy);
    if (d < 1e-12) return [body.x + fp.radius, body.y];
    return [body.x + (dx / d) * fp.radius, body.y + (dy / d) * fp.radius];
  }
  const c = Math.cos(body.theta);
  const s = Math.sin(body.theta);
  const lx = Math.min(Math.max(c * (qx - body.x) + s * (qy - body.y), -fp.hx), fp.hx);
  const ly = Math.min(Math.max(-s * (qx - body.x) + c * (qy - body.y), -fp.hy), fp.hy);
  return [body.x + c * lx - s * ly, body.y + s * lx + c * ly];
}
