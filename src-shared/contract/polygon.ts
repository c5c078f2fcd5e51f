/**
 * Plane geometry of polygons given as vertex lists (edge i runs from vertex i to vertex i + 1, the
 * last edge back to vertex 0): orientation, simplicity, distance to the boundary, inside or
 * outside, and a triangulation. Pure functions on plain points, in whatever unit the caller uses;
 * table-region.ts builds the table top on them.
 */

export interface Vertex {
  readonly x: number;
  readonly y: number;
}

/** (b - a) x (c - a): positive when a, b, c turn left (counter-clockwise), 0 when collinear. */
function turn(a: Vertex, b: Vertex, c: Vertex): number {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

/** Twice the signed area: positive when the vertices run counter-clockwise. */
export function signedArea2(poly: readonly Vertex[]): number {
  let s = 0;
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % poly.length]!;
    s += a.x * b.y - b.x * a.y;
  }
  return s;
}

/** Whether p lies on the closed segment ab, given that it is collinear with it. */
function withinBox(a: Vertex, b: Vertex, p: Vertex): boolean {
  return (
    Math.min(a.x, b.x) <= p.x &&
    p.x <= Math.max(a.x, b.x) &&
    Math.min(a.y, b.y) <= p.y &&
    p.y <= Math.max(a.y, b.y)
  );
}

/** Whether the closed segments ab and cd share a point (crossing, touching or overlapping). */
export function segmentsTouch(a: Vertex, b: Vertex, c: Vertex, d: Vertex): boolean {
  const d1 = turn(c, d, a);
  const d2 = turn(c, d, b);
  const d3 = turn(a, b, c);
  const d4 = turn(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (
    (d1 === 0 && withinBox(c, d, a)) ||
    (d2 === 0 && withinBox(c, d, b)) ||
    (d3 === 0 && withinBox(a, b, c)) ||
    (d4 === 0 && withinBox(a, b, d))
  );
}

/**
 * The first two edges that keep the polygon from being simple, or null: edges that are not
 * neighbours may not share a point, and neighbours only their common vertex (a spike, where the
 * outline doubles back along itself, overlaps them). Assumes no two consecutive vertices coincide.
 */
export function firstEdgeContact(poly: readonly Vertex[]): [number, number] | null {
  const n = poly.length;
  const at = (i: number): Vertex => poly[i % n]!;
  for (let i = 0; i < n; i++) {
    const [a, b, c] = [at(i), at(i + 1), at(i + 2)];
    const backwards = (b.x - a.x) * (c.x - b.x) + (b.y - a.y) * (c.y - b.y) < 0;
    if (turn(a, b, c) === 0 && backwards) return [i, (i + 1) % n];
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      if (segmentsTouch(a, b, at(j), at(j + 1))) return [i, j];
    }
  }
  return null;
}

/**
 * The signed distance from (x, y) to the polygon's boundary: negative inside, positive outside,
 * 0 on it. Inside is the even-odd rule (for a simple polygon, its interior). Allocation-free: the
 * planner's edge cost calls it for every object after every predicted control.
 */
export function signedDistance(poly: readonly Vertex[], x: number, y: number): number {
  let nearest = Infinity;
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const a = poly[j]!;
    const b = poly[i]!;
    const ex = b.x - a.x;
    const ey = b.y - a.y;
    const f = Math.min(1, Math.max(0, ((x - a.x) * ex + (y - a.y) * ey) / (ex * ex + ey * ey)));
    const dx = x - a.x - f * ex;
    const dy = y - a.y - f * ey;
    nearest = Math.min(nearest, dx * dx + dy * dy);
    if (a.y > y !== b.y > y && x < a.x + ((y - a.y) * ex) / ey) inside = !inside;
  }
  const d = Math.sqrt(nearest);
  return inside ? -d : d;
}

/**
 * Triangles (vertex index triples, counter-clockwise) covering a simple counter-clockwise polygon,
 * by ear clipping: O(n^3), for outlines of tens of points.
 */
export function triangulate(poly: readonly Vertex[]): [number, number, number][] {
  const left = poly.map((_, i) => i);
  const triangles: [number, number, number][] = [];
  const blocks = (j: number, a: Vertex, b: Vertex, c: Vertex): boolean => {
    const p = poly[j]!;
    return turn(a, b, p) >= 0 && turn(b, c, p) >= 0 && turn(c, a, p) >= 0;
  };
  while (left.length > 3) {
    const n = left.length;
    const ear = left.findIndex((i1, k) => {
      const i0 = left[(k + n - 1) % n]!;
      const i2 = left[(k + 1) % n]!;
      const [a, b, c] = [poly[i0]!, poly[i1]!, poly[i2]!];
      return turn(a, b, c) > 0 && !left.some((j) => j !== i0 && j !== i1 && j !== i2 && blocks(j, a, b, c));
    });
    if (ear < 0) throw new Error('triangulate: not a simple counter-clockwise polygon');
    triangles.push([left[(ear + n - 1) % n]!, left[ear]!, left[(ear + 1) % n]!]);
    left.splice(ear, 1);
  }
  triangles.push([left[0]!, left[1]!, left[2]!]);
  return triangles;
}
