/**
 * The space the tool may move in: the table rectangle shrunk by a margin, in the table frame, and
 * a height band above the table. A command is checked on where it would take the pusher before it
 * is sent, not after the arm got there.
 */
import type { Point } from '#contract/scene';
import { sceneTableProblem, type Setup } from '../calibration/setup-file';

export interface Workspace {
  /** Half extents of the allowed rectangle (table half size minus margin), m. */
  halfX: number;
  halfY: number;
  /** Allowed tool heights above the table surface, m. */
  zMin: number;
  zMax: number;
}

/** A table rectangle, centred on the table-frame origin, shrunk by `margin`; and a height band. */
export function workspaceFor(
  table: { size: { x: number; y: number } },
  margin: number,
  zBand: readonly [number, number],
): Workspace {
  const halfX = table.size.x / 2 - margin;
  const halfY = table.size.y / 2 - margin;
  if (halfX <= 0 || halfY <= 0)
    throw new Error(
      `workspace margin ${margin} m leaves no room on a ${table.size.x} x ${table.size.y} m table`,
    );
  return { halfX, halfY, zMin: zBand[0], zMax: zBand[1] };
}

/**
 * The workspace of a run: the scene's table, which must lie on the lab's physical table from the
 * setup, shrunk by the setup's margin, with the setup's height band. A scene file is edited freely
 * and not trusted to describe the lab, so only the setup can make the workspace larger.
 */
export function labWorkspace(
  setup: Pick<Setup, 'table' | 'safety'>,
  sceneTable: { size: { x: number; y: number } },
): Workspace {
  const problem = sceneTableProblem(setup, sceneTable);
  if (problem) throw new Error(`the scene does not fit the lab: ${problem}`);
  return workspaceFor(sceneTable, setup.safety.workspaceMargin, setup.safety.heightBand);
}

/** Fails NaN: a comparison with NaN is false. */
export function insideRect(ws: Workspace, x: number, y: number): boolean {
  return Math.abs(x) <= ws.halfX && Math.abs(y) <= ws.halfY;
}

/**
 * Null when moving from (x, y) with velocity (vx, vy) for `lookahead` seconds keeps the pusher
 * inside the rectangle (the path is a segment and the region convex, so checking its end points
 * suffices); otherwise why not.
 */
export function checkMotion(
  ws: Workspace,
  pos: { x: number; y: number; z: number },
  v: { vx: number; vy: number },
  lookahead: number,
): string | null {
  if (!(pos.z >= ws.zMin && pos.z <= ws.zMax)) {
    return `tool height ${(pos.z * 1000).toFixed(0)} mm is outside ${(ws.zMin * 1000).toFixed(0)}..${(ws.zMax * 1000).toFixed(0)} mm`;
  }
  const ex = pos.x + v.vx * lookahead;
  const ey = pos.y + v.vy * lookahead;
  if (!insideRect(ws, pos.x, pos.y)) {
    // Outside already (e.g. after a manual move): only motion that brings it back is allowed.
    const before = Math.max(Math.abs(pos.x) - ws.halfX, Math.abs(pos.y) - ws.halfY);
    const after = Math.max(Math.abs(ex) - ws.halfX, Math.abs(ey) - ws.halfY);
    return after < before
      ? null
      : `pusher at (${mm(pos.x)}, ${mm(pos.y)}) is outside the workspace and the command moves it no closer`;
  }
  if (!insideRect(ws, ex, ey))
    return `the command would take the pusher to (${mm(ex)}, ${mm(ey)}), outside the workspace`;
  return null;
}

const mm = (m: number): string => `${(m * 1000).toFixed(0)} mm`;

/** Farthest footprint point from the tool point (m): a yaw rate times this is its fastest swing. */
export function footprintReach(points: readonly Point[]): number {
  return Math.max(0, ...points.map((p) => Math.hypot(p.x, p.y)));
}

/** How far (x, y) lies outside the rectangle (m; 0 or less inside). */
function excess(ws: Workspace, x: number, y: number): number {
  return Math.max(Math.abs(x) - ws.halfX, Math.abs(y) - ws.halfY);
}

/**
 * checkMotion for a tool that turns and has an extent: every `footprint` point (tool frame, x
 * forward) of the tool at `pose` must stay inside the rectangle while it moves with (vx, vy) and
 * turns at `yawRate` for `lookahead` seconds. A turning point moves on an arc, so it is checked
 * at the arc's middle as well as its ends (a chord of 0.2 rad over 0.12 m misses the arc by 0.6
 * mm). Outside already, only motion that brings the farthest point closer is allowed.
 */
export function checkFootprintMotion(
  ws: Workspace,
  pose: { x: number; y: number; z: number; yaw: number },
  v: { vx: number; vy: number; yawRate: number },
  lookahead: number,
  footprint: readonly Point[],
): string | null {
  if (!(pose.z >= ws.zMin && pose.z <= ws.zMax)) {
    return `tool height ${(pose.z * 1000).toFixed(0)} mm is outside ${(ws.zMin * 1000).toFixed(0)}..${(ws.zMax * 1000).toFixed(0)} mm`;
  }
  const at = (t: number): { x: number; y: number }[] => {
    const yaw = pose.yaw + v.yawRate * t;
    const c = Math.cos(yaw);
    const s = Math.sin(yaw);
    const cx = pose.x + v.vx * t;
    const cy = pose.y + v.vy * t;
    return footprint.map((p) => ({ x: cx + c * p.x - s * p.y, y: cy + s * p.x + c * p.y }));
  };
  // `!(b.excess <= a.excess)` picks a NaN excess as the worst: a point nobody can place fails.
  const worst = (points: { x: number; y: number }[]): { x: number; y: number; excess: number } =>
    points
      .map((p) => ({ ...p, excess: excess(ws, p.x, p.y) }))
      .reduce((a, b) => (!(b.excess <= a.excess) ? b : a));
  const before = worst(at(0));
  const after = worst([...at(lookahead / 2), ...at(lookahead)]);
  if (!(before.excess <= 0)) {
    return after.excess < before.excess
      ? null
      : `the tool reaches (${mm(before.x)}, ${mm(before.y)}), outside the workspace, and the command moves it no closer`;
  }
  if (!(after.excess <= 0))
    return `the command would take the tool to (${mm(after.x)}, ${mm(after.y)}), outside the workspace`;
  return null;
}
