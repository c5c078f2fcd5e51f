/**
 * The gripper seen from above, defined once for the planner (planning/grasp.ts), the safety
 * supervisor's workspace check (safety/workspace.ts) and the table drawing (draw-table.ts).
 *
 * Gripper frame (contract/scene.ts gripperSchema): origin at the grasp centre, x forward (palm to
 * fingertips), y across. The fingers' inner faces are at y = +-opening / 2 and span x in
 * [-length / 2, length / 2]; the palm lies behind them, centred on the x axis.
 */
import type { Gripper } from './scene';

/** Where the gripper is: its grasp centre (m), forward direction (rad) and gap between the fingers (m). */
export interface GripperPose {
  x: number;
  y: number;
  yaw: number;
  opening: number;
}

/** One rectangular part in the table frame: its centre (m), its yaw (rad) and half-extents along its own axes (m). */
export interface GripperPart {
  x: number;
  y: number;
  theta: number;
  hx: number;
  hy: number;
}

/** The palm, the left finger (+y) and the right finger (-y), in that order. */
export function gripperParts(g: Gripper, p: GripperPose): [GripperPart, GripperPart, GripperPart] {
  const c = Math.cos(p.yaw);
  const s = Math.sin(p.yaw);
  const at = (lx: number, ly: number, hx: number, hy: number): GripperPart => ({
    x: p.x + c * lx - s * ly,
    y: p.y + s * lx + c * ly,
    theta: p.yaw,
    hx,
    hy,
  });
  const { finger, palm } = g;
  const across = p.opening / 2 + finger.thickness / 2;
  return [
    at(-(finger.length / 2 + palm.depth / 2), 0, palm.depth / 2, palm.width / 2),
    at(0, across, finger.length / 2, finger.thickness / 2),
    at(0, -across, finger.length / 2, finger.thickness / 2),
  ];
}

/** A part's four corners (m), counter-clockwise from its back right one. */
export function partCorners(r: GripperPart): [number, number][] {
  const c = Math.cos(r.theta);
  const s = Math.sin(r.theta);
  return [
    [-r.hx, -r.hy],
    [r.hx, -r.hy],
    [r.hx, r.hy],
    [-r.hx, r.hy],
  ].map(([lx, ly]) => [r.x + c * lx! - s * ly!, r.y + s * lx! + c * ly!]);
}
