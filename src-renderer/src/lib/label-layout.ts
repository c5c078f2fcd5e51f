/**
 * Places the table view's labels (GOAL, object ids, pusher, k=0, k=1, ...) so they do not cover
 * each other or the marks they must not hide (the pusher, the sliders). Each label has an anchor
 * and a preferred spot; when that spot is taken, the next free spot on rings around the anchor
 * is used, and a label moved far gets a leader line back to its anchor. Greedy, in the order
 * given: the labels that matter most come first.
 */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LabelRequest {
  text: string;
  /** The point the label names, canvas px. */
  anchor: [number, number];
  /** Preferred offset of the label's centre from the anchor, px. */
  offset: [number, number];
  colour: string;
}

export interface PlacedLabel extends LabelRequest {
  /** Centre of the text, px (text is drawn centred on x, with its middle at y). */
  at: [number, number];
  box: Box;
  /** Moved away from its preferred spot. */
  moved: boolean;
  /** Moved far enough that a leader line back to the anchor is drawn. */
  leader: boolean;
}

/** Height of a label's box, px (12 px text and a little air). */
export const LABEL_HEIGHT = 15;
/** A label moved further than this from its preferred spot gets a leader line, px. */
export const LEADER_SHIFT = 30;

const directions: [number, number][] = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
  [1, -1],
  [1, 1],
  [-1, 1],
  [-1, -1],
];

export function placeLabels(
  requests: readonly LabelRequest[],
  textWidth: (text: string) => number,
  avoid: readonly Box[] = [],
  bounds: Box | null = null,
): PlacedLabel[] {
  const taken: Box[] = [];
  const placed: PlacedLabel[] = [];
  for (const r of requests) {
    const w = textWidth(r.text) + 6;
    const candidates: [number, number][] = [r.offset];
    for (const ring of [18, 30, 44, 60])
      for (const [dx, dy] of directions) candidates.push([dx * (ring + w / 2 - 8), dy * ring]);
    let best: { at: [number, number]; box: Box; cost: number; i: number } | null = null;
    for (const [i, [dx, dy]] of candidates.entries()) {
      const at: [number, number] = [r.anchor[0] + dx, r.anchor[1] + dy];
      const box = { x: at[0] - w / 2, y: at[1] - LABEL_HEIGHT / 2, w, h: LABEL_HEIGHT };
      const cost =
        taken.reduce((s, b) => s + overlap(box, b), 0) +
        avoid.reduce((s, b) => s + overlap(box, b), 0) +
        (bounds ? outside(box, bounds) : 0);
      if (!best || cost < best.cost) best = { at, box, cost, i };
      if (cost === 0) break;
    }
    taken.push(best!.box);
    const { at, box, i } = best!;
    const shift = Math.hypot(at[0] - r.anchor[0] - r.offset[0], at[1] - r.anchor[1] - r.offset[1]);
    placed.push({ ...r, at, box, moved: i > 0, leader: shift > LEADER_SHIFT });
  }
  return placed;
}

/** Area shared by two boxes, px². */
export function overlap(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Area of `a` outside `bounds`, px². */
function outside(a: Box, bounds: Box): number {
  return a.w * a.h - overlap(a, bounds);
}

/** The box around a circle. */
export function circleBox(x: number, y: number, r: number): Box {
  return { x: x - r, y: y - r, w: 2 * r, h: 2 * r };
}
