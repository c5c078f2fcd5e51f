/**
 * Where a jog may take the pusher, judged before the arm moves: the straight path of the tool
 * point on the table, swept by the pusher's disc (a gripper's: the disc that holds its open
 * footprint), against the scene's obstacles and objects, and against the table's edge. The console
 * core asks before every jog (console/calibration-wizard.ts) and the calibration presets are
 * chosen with the same geometry (calibration-points.ts in the renderer). Pure: table frame,
 * metres and radians, no lab.
 *
 * A path that would touch a body asks the operator first (a push during calibration moves an
 * object the run then starts from, or drives the pusher into a fixed obstacle); a path that ends
 * nearer the table edge than the setup's workspace margin is refused: a run's supervisor keeps
 * the tool that far inside the edge, and a pusher at the edge pushes objects off the table.
 */
import { endEffectorOf, type ToolEntries } from './end-effector/registry';
import { guardShape, pointGap, segmentGap, type PlacedShape } from './footprint';
import type { Vertex } from './polygon';
import type { Scene } from './scene';
import { tableRegion, type TableShape } from './table-region';

/** A body the pusher must not run into: an object (it would be pushed) or an obstacle (fixed). */
export interface JogBody {
  id: string;
  kind: 'object' | 'obstacle';
  footprint: PlacedShape;
}

export interface JogScene {
  table: TableShape;
  /** The setup's workspace margin (m): how far inside the table edge the tool stays in a run. */
  margin: number;
  /** Radius of the disc the tool sweeps (m): the pusher's, or one that holds a gripper's footprint. */
  reach: number;
  bodies: JogBody[];
}

export type JogPathVerdict =
  | { verdict: 'clear' }
  /** The path touches these bodies: the operator confirms or cancels. */
  | { verdict: 'crosses'; bodies: string[]; message: string }
  /** The path ends too near the table edge: not jogged. */
  | { verdict: 'refused'; message: string };

/** How far along the path the start's contact is judged (m): 1 mm tells towards from away. */
const LEAVING_STEP = 0.001;

// A reading a hair below zero rounds to "-0": `+ 0` makes it plain 0.
const mm = (m: number): string => (Math.round(m * 1000) + 0).toFixed(0);

/**
 * The disc the tool sweeps: the pusher's radius, or for a gripper the farthest corner of its
 * palm and fully open fingers from the grasp centre (it may turn while jogged by hand).
 */
export function toolReach(scene: ToolEntries): number {
  const tool = endEffectorOf(scene);
  return (tool.discRadius ?? 0) + Math.max(0, ...tool.outline.map((p) => Math.hypot(p.x, p.y)));
}

/**
 * The bodies of a scene for a jog: its obstacles where the scene puts them, and its objects where
 * `objects` says they are now (by slider id; the scene's start poses for any not given).
 */
export function jogBodies(
  scene: Pick<Scene, 'obstacles' | 'sliders'>,
  objects: ReadonlyMap<string, { x: number; y: number; theta: number }> = new Map(),
): JogBody[] {
  return [
    ...scene.obstacles.map((o) => ({
      id: o.id,
      kind: 'obstacle' as const,
      footprint: { shape: guardShape(o.shape), ...o.pose },
    })),
    ...scene.sliders.map((s) => ({
      id: s.id,
      kind: 'object' as const,
      footprint: { shape: guardShape(s.shape), ...(objects.get(s.id) ?? s.pose) },
    })),
  ];
}

/**
 * Whether the swept disc from `from` to `to` touches `body`. A pusher already touching it
 * crosses only when the path goes further in: one that moves off (or along) it does not.
 */
function touches(body: JogBody, reach: number, from: Vertex, to: Vertex): boolean {
  const length = Math.hypot(to.x - from.x, to.y - from.y);
  if (!(segmentGap(body.footprint, from, to) < reach)) return false;
  const atStart = pointGap(body.footprint, from.x, from.y);
  if (!(atStart < reach) || length === 0) return true;
  const f = Math.min(LEAVING_STEP, length) / length;
  const next = pointGap(body.footprint, from.x + f * (to.x - from.x), from.y + f * (to.y - from.y));
  // The gap along a segment to a convex footprint is convex: growing at first, it never shrinks.
  return next < atStart;
}

/** Judges the tool point's straight path from `from` to `to` (table frame, m). */
export function judgeJogPath(scene: JogScene, from: Vertex, to: Vertex): JogPathVerdict {
  const table = tableRegion(scene.table);
  const workspace = table.shrunk(scene.margin);
  const end = workspace.excess(to.x, to.y);
  // A pusher already outside the workspace may come back in; nothing may go (further) out.
  if (end > 0 && !(end < workspace.excess(from.x, from.y))) {
    const fromEdge = -table.excess(to.x, to.y);
    return {
      verdict: 'refused',
      message:
        `refused: the jog would take the pusher to (${mm(to.x)}, ${mm(to.y)}) mm, ` +
        (fromEdge > 0
          ? `${mm(fromEdge)} mm from the table edge`
          : `${mm(-fromEdge)} mm beyond the table edge`) +
        `; jogs stay ${mm(scene.margin)} mm inside it (the setup's workspace margin, where the supervisor keeps the tool in a run), so neither the pusher nor an object it meets goes over the edge`,
    };
  }
  const hit = scene.bodies.filter((b) => touches(b, scene.reach, from, to));
  if (hit.length === 0) return { verdict: 'clear' };
  const words = hit.map((b) => `${b.kind} ${b.id}`);
  const effects = [
    hit.some((b) => b.kind === 'object') && 'push the object out of place',
    hit.some((b) => b.kind === 'obstacle') && 'run into the obstacle',
  ].filter((e): e is string => typeof e === 'string');
  return {
    verdict: 'crosses',
    bodies: hit.map((b) => b.id),
    message:
      `the jog's path from (${mm(from.x)}, ${mm(from.y)}) to (${mm(to.x)}, ${mm(to.y)}) mm crosses ${words.join(' and ')}: ` +
      `the pusher (${mm(scene.reach)} mm radius) would ${effects.join(' and ')}`,
  };
}
