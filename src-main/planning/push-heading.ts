/**
 * Which way the goal object should go next and where the pusher stands to send it there: towards
 * the goal when its straight way is clear, else past the first obstacle in the way on either
 * side. MPC's fresh candidates (mpc.ts) and TAMPC's (tampc.ts) start from it.
 */
import type { State } from '#contract/state';
import { footprintReach, footprintSupport } from '#physics/geometry2d';
import type { TaskGeometry } from './task-geometry';
import { firstInTheWay, tangentPoints } from './way-round';

/**
 * How close (m) the tool's reference point comes to the goal object's centre, the tool as it stands
 * in x moving along the unit direction (dx, dy) until it touches: the object's bounding radius plus
 * how far the tool's parts reach ahead of the reference point along that direction.
 */
export function contactDistance(geometry: TaskGeometry, x: State, dx: number, dy: number): number {
  const [px, py] = geometry.layout.pusherPosition(x);
  const ahead = Math.max(
    ...geometry
      .placedRobot(x)
      .map(
        (part) =>
          (part.x - px) * dx + (part.y - py) * dy + footprintSupport(part.footprint, part.theta, dx, dy),
      ),
  );
  return footprintReach(geometry.sliders[geometry.goalIndex]!) + ahead;
}

/**
 * Where the pusher stands to push the goal object straight at `target`: on the far side of the
 * object from the target, at contact distance (`contact`: the object's bounding radius plus how far
 * the tool reaches ahead of its reference point along the push). `reach` bounds both bodies whatever
 * their turn (the object's bounding radius plus the tool's), the distance to keep when going round
 * the object; `direction` is the unit push direction. For a round pusher the two are equal; a flat
 * pusher reaches half its depth ahead but half its diagonal round, and standing back by the
 * latter would take it off an object it already touches.
 */
export function prePushPoint(
  geometry: TaskGeometry,
  x: State,
  target: { x: number; y: number } = geometry.goal,
): { behind: { x: number; y: number }; reach: number; contact: number; direction: [number, number] } {
  const s = geometry.layout.sliderPose(x, geometry.goalIndex);
  const gx = target.x - s.x;
  const gy = target.y - s.y;
  const gd = Math.hypot(gx, gy) || 1;
  const dx = gx / gd;
  const dy = gy / gd;
  const reach =
    footprintReach(geometry.sliders[geometry.goalIndex]!) + footprintReach(geometry.tool.envelope.footprint);
  const contact = contactDistance(geometry, x, dx, dy);
  return {
    behind: { x: s.x - dx * contact, y: s.y - dy * contact },
    reach,
    contact,
    direction: [dx, dy],
  };
}

/**
 * Where the goal object should head first: the goal itself when its straight way there keeps
 * `clearance` from every obstacle and every other slider, else the two points where lines from the object touch the
 * first obstacle in the way grown by a clearance-and-a-half (so the push can drift and still
 * pass), one on either side. A point beside the obstacle square to the goal line, as this chose
 * before, is a good heading only from afar: from an object already near the obstacle the line to
 * it cuts the corner within the clearance, and the push looked no better than waiting.
 */
export function waypoints(geometry: TaskGeometry, x: State, clearance: number): { x: number; y: number }[] {
  const s = geometry.layout.sliderPose(x, geometry.goalIndex);
  const goal = geometry.goal;
  // Other sliders count as in the way too (CVS 2020 Sec. 5): a straight push drives the goal
  // object into them and them ahead of it, into the goal region (a failure) or off the table. One
  // standing so close to the goal that its disc covers the goal centre is left to the sampled
  // pushes: no way round it ends at the centre.
  const others = geometry
    .otherSliderDiscs(x, clearance)
    .filter((d) => Math.hypot(goal.x - d.x, goal.y - d.y) > d.r);
  const inTheWay = firstInTheWay(s, goal, [...geometry.obstacleDiscs(clearance), ...others]);
  if (!inTheWay) return [geometry.goal];
  return tangentPoints(s, { ...inTheWay, r: inTheWay.r + 0.5 * clearance });
}
