/**
 * Fresh control sequences built from the geometry alone, no optimization: a straight push to the
 * goal, and an approach to the point behind the object followed by a push. MPC weighs them against
 * its warm start when that has lost the object; TAMPC's candidates start from them.
 */
import type { Control, State } from '#contract/state';
import { contactDistance, prePushPoint } from './push-heading';
import type { TaskGeometry } from './task-geometry';

/** n controls of a straight push of the goal object towards the goal centre at `speed`. */
export function straightToGoal(geometry: TaskGeometry, x: State, n: number, speed: number): Control[] {
  const p = geometry.layout.sliderPose(x, geometry.goalIndex);
  const dx = geometry.goal.x - p.x;
  const dy = geometry.goal.y - p.y;
  const d = Math.hypot(dx, dy);
  const u: Control = d > 1e-9 ? [(dx / d) * speed, (dy / d) * speed] : [0, 0];
  return Array.from({ length: n }, () => u);
}

/**
 * A fresh sequence for when the warm start has lost the object: the pusher heads for the point
 * behind the goal object (as seen from `target`, by default the goal), then pushes it towards the
 * target, at `speed`.
 */
export function approachAndPush(
  geometry: TaskGeometry,
  x: State,
  n: number,
  speed: number,
  dt: number,
  target: { x: number; y: number } = geometry.goal,
): Control[] {
  const L = geometry.layout;
  const s = L.sliderPose(x, geometry.goalIndex);
  const { behind, reach, direction } = prePushPoint(geometry, x, target);
  const [gx, gy] = direction;
  let [px, py] = L.pusherPosition(x);
  const touching = (dx: number, dy: number): number => contactDistance(geometry, x, dx, dy);
  const targets = [...aroundObject(s, reach, touching, { x: px, y: py }, behind), behind];
  const out: Control[] = [];
  // Once behind the object the pusher keeps pushing: the object moves ahead of it from then on.
  let pushing = false;
  for (let t = 0; t < n; t++) {
    let target = targets[0]!;
    while (targets.length > 1 && Math.hypot(target.x - px, target.y - py) < 1e-3) {
      targets.shift();
      target = targets[0]!;
    }
    const dx = target.x - px;
    const dy = target.y - py;
    const d = Math.hypot(dx, dy);
    pushing ||= targets.length === 1 && d < 1e-3;
    const step = Math.min(speed, d / dt);
    const u: Control = pushing ? [gx * speed, gy * speed] : [(dx / d) * step, (dy / d) * step];
    out.push(u);
    px += u[0]! * dt;
    py += u[1]! * dt;
  }
  return out;
}

/** Largest turn (rad) between two detour points, so the chord between them stays clear of the object. */
const DETOUR_STEP = Math.PI / 4;
/** How far outside the contact distance the detour runs (m). */
const DETOUR_GAP = 0.015;

/**
 * Points on a circle around the object (radius `reach`, clear of it whatever the tool's turn) that
 * take the pusher from `from` to `to` without crossing it (the shorter way round), or none when
 * the straight way is already clear: the tool never comes to `touching(direction)` of the object's
 * centre, its contact distance moving that way. Going straight through would push the object away
 * from where it is to go, e.g. after it overshot the goal.
 */
function aroundObject(
  s: { x: number; y: number },
  reach: number,
  touching: (dx: number, dy: number) => number,
  from: { x: number; y: number },
  to: { x: number; y: number },
): { x: number; y: number }[] {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((s.x - from.x) * dx + (s.y - from.y) * dy) / len2)) : 0;
  // The way is clear when, where it passes closest, the tool stops short of touching the object.
  const cx = s.x - (from.x + t * dx);
  const cy = s.y - (from.y + t * dy);
  const gap = Math.hypot(cx, cy);
  if (gap > 1e-9 && gap >= touching(cx / gap, cy / gap) - 1e-3) return [];
  const a0 = Math.atan2(from.y - s.y, from.x - s.x);
  const a1 = Math.atan2(to.y - s.y, to.x - s.x);
  const turn = Math.atan2(Math.sin(a1 - a0), Math.cos(a1 - a0));
  const m = Math.ceil(Math.abs(turn) / DETOUR_STEP);
  const r = reach + DETOUR_GAP;
  return Array.from({ length: m }, (_, k) => {
    const a = a0 + (turn * (k + 1)) / m;
    return { x: s.x + r * Math.cos(a), y: s.y + r * Math.sin(a) };
  });
}
