/**
 * The table top as a region of the table plane: the one answer to "is this point on the table,
 * and how far from its edge" for the scene check, the off-table failure, the planner's edge cost,
 * start sampling and the views. A scene's table is its `size` rectangle, centred on the origin,
 * or, with an `outline`, that polygon (within the rectangle, which stays its bounding extent for
 * the lab's safety checks).
 *
 * Distances are signed: negative inside (minus the distance to the nearest edge), positive
 * outside. Inside, both shapes give the distance to the nearest edge. Outside a corner the
 * rectangle gives the larger of the two per-axis distances (the formula every run before outlines
 * used, kept bit for bit), the polygon the Euclidean distance to the corner.
 */
import { firstEdgeContact, signedArea2, signedDistance, type Vertex } from './polygon';

/** What the region needs of a scene's table (contract/scene.ts `tableSchema`). */
export interface TableShape {
  size: { x: number; y: number };
  outline?: readonly Vertex[] | undefined;
}

export interface TableRegion {
  /** Signed distance of (x, y) from the region's boundary (m): negative inside, positive outside. */
  excess(x: number, y: number): number;
  /** Whether (x, y) is on the region, its boundary included. */
  contains(x: number, y: number): boolean;
  /** The region shrunk by `margin` on every side (WAFR's safe zone inside the table's edges). */
  shrunk(margin: number): TableRegion;
}

class RectangleRegion implements TableRegion {
  constructor(
    private readonly halfX: number,
    private readonly halfY: number,
  ) {}

  excess(x: number, y: number): number {
    return Math.max(Math.abs(x) - this.halfX, Math.abs(y) - this.halfY);
  }

  contains(x: number, y: number): boolean {
    return this.excess(x, y) <= 0;
  }

  shrunk(margin: number): TableRegion {
    return new RectangleRegion(this.halfX - margin, this.halfY - margin);
  }
}

/** A polygon shrunk by `inset`: the points at least `inset` inside its boundary. */
class PolygonRegion implements TableRegion {
  constructor(
    private readonly outline: readonly Vertex[],
    private readonly inset: number,
  ) {}

  excess(x: number, y: number): number {
    return signedDistance(this.outline, x, y) + this.inset;
  }

  contains(x: number, y: number): boolean {
    return this.excess(x, y) <= 0;
  }

  shrunk(margin: number): TableRegion {
    return new PolygonRegion(this.outline, this.inset + margin);
  }
}

/** The region of a table that passed the scene schema (see outlineProblems). */
export function tableRegion(table: TableShape): TableRegion {
  return table.outline
    ? new PolygonRegion(table.outline, 0)
    : new RectangleRegion(table.size.x / 2, table.size.y / 2);
}

export interface OutlineProblem {
  /** The point at fault, or null for the outline as a whole. */
  point: number | null;
  message: string;
}

/**
 * What is wrong with a table's outline: points outside `size`, a point repeating the one before
 * it, edges that cross or touch (not a simple polygon), points running clockwise. Empty without
 * an outline. The point count (3 or more) is the schema's own check, made before this one.
 */
export function outlineProblems(table: TableShape): OutlineProblem[] {
  const poly = table.outline;
  if (!poly) return [];
  const hx = table.size.x / 2;
  const hy = table.size.y / 2;
  const problems: OutlineProblem[] = [];
  let repeats = false;
  poly.forEach((p, i) => {
    if (Math.abs(p.x) > hx || Math.abs(p.y) > hy)
      problems.push({
        point: i,
        message: `lies outside table.size (the outline must keep within |x| <= ${hx} m, |y| <= ${hy} m)`,
      });
    const before = (i + poly.length - 1) % poly.length;
    if (p.x === poly[before]!.x && p.y === poly[before]!.y) {
      repeats = true;
      problems.push({
        point: i,
        message:
          i === 0
            ? 'the last point repeats it (the outline closes by itself: do not repeat the first point)'
            : `repeats point ${before}`,
      });
    }
  });
  // A zero-length edge has no direction: the crossing test needs every edge to have one.
  if (repeats) return problems;
  const contact = firstEdgeContact(poly);
  if (contact) {
    const [i, j] = contact;
    const edge = (k: number) => `edge ${k} (points ${k}-${(k + 1) % poly.length})`;
    problems.push({
      point: null,
      message: `${edge(i)} and ${edge(j)} cross or touch: the outline must be a simple polygon`,
    });
  } else if (signedArea2(poly) <= 0) {
    problems.push({
      point: null,
      message: 'runs clockwise: list the points counter-clockwise (seen from above, z up)',
    });
  }
  return problems;
}

/**
 * "is off the table" with the bounds the point broke: the coordinates out of the table's extent
 * ("x must be within -0.40..0.40 m"), or, inside the extent but off an outline, the outline's.
 */
export function offTableMessage(
  p: { x: number; y: number },
  table: { size: { x: number; y: number }; outline?: readonly unknown[] | undefined },
): string {
  const hx = table.size.x / 2;
  const hy = table.size.y / 2;
  // At least two decimals (0.40), as many as the size has up to 0.1 mm (0.3375).
  const metres = (v: number) => {
    const [whole, decimals = ''] = String(Number(Math.abs(v).toFixed(4))).split('.');
    return `${v < 0 ? '-' : ''}${whole}.${decimals.padEnd(2, '0')}`;
  };
  const range = (h: number) => `${metres(-h)}..${metres(h)} m`;
  const out = [
    ...(Math.abs(p.x) > hx ? [`x must be within ${range(hx)}`] : []),
    ...(Math.abs(p.y) > hy ? [`y must be within ${range(hy)}`] : []),
  ];
  if (out.length > 0) return `is off the table (${out.join(', ')})`;
  return `is off the table: outside its outline (table.outline; the table spans x ${range(hx)}, y ${range(hy)})`;
}
