/**
 * What the planners do with a gripper (grasping in clutter, WAFR 2018 Sec. 7.2):
 * - approach sequences, the gripper's counterpart of the straight pushes of Alg. 2: the grasp
 *   centre goes to the target's centre along an approach lane, the yaw turns the forward
 *   direction along the lane as fast as allowed, and the fingers stay closed in transit and open
 *   in time to arrive open. Spread over n controls, few controls make a fast approach and many a
 *   slow one. Whatever lies on the way to the lane is pushed aside by the closed hand.
 * - the closing reflex: once the target lies between the open fingers the run closes them,
 *   without planning (grasp.ts says when it is in the hand and when it is held).
 *
 * Why lanes and closed fingers: the first clutter experiment drove the open hand straight at the
 * target, and in all 4 runs it scooped a neighbour up on the way and pushed it along beside the
 * target, out of reach of the grasp (docs/experiments/wafr-clutter-fine). In 6 of the 10 seed-1
 * scenes an object lies across the straight line within the hand's width.
 */
import { wrapAngle, type Control, type State } from '#contract/state';
import type { ControlLimits } from '#contract/end-effector/end-effector';
import { gripperParts, partCorners } from '#contract/gripper-geometry';
import { inHand } from './grasp';
import type { TaskGeometry } from './task-geometry';
import { footprintReach } from '#physics/geometry2d';

const clamp = (v: number, max: number): number => Math.max(-max, Math.min(max, v));

/** Lane directions tried, relative to the straight line from the grasp centre to the target (rad). */
const LANE_OFFSETS = [0, Math.PI / 6, -Math.PI / 6, Math.PI / 3, -Math.PI / 3];

/**
 * What turning the hand costs a lane, in metres of path per radian: a lane as clear and as short
 * as the one the hand faces wins only by a clear margin, so the choice does not flip between
 * steps as the gripper moves.
 */
const TURN_COST = 0.04;

/**
 * What an object reaching into a lane's corridor costs it, in metres of path per metre of reach:
 * the palm or a finger that meets an object on the last stretch pushes it into the hand or the
 * target, which a detour of a few centimetres avoids.
 */
const BLOCK_COST = 5;

/** Gap between the fingertips and the target's bounding circle at the pre-grasp point (m). */
const PREGRASP_CLEARANCE = 0.03;

/**
 * The open hand at a lane's pre-grasp point stays this far inside the table's edges (m): a lab's
 * supervisor refuses any command that would take the hand's footprint closer to the edge than its
 * workspace margin (30 mm by default: calibration/setup-file.ts), and a virtual-lab run on wafr-clutter
 * was stopped so, by a lane whose pre-grasp point put the palm 60 mm past it.
 */
const HAND_MARGIN = 0.03;

/** Within this of the lane's centre line (m), behind the target, the gripper is in the lane. */
const IN_LANE = 0.01;

export interface ApproachLane {
  /** Direction in which the hand moves into the target, and faces at the grasp (rad). */
  heading: number;
  /** Where the grasp centre lines up with the target before moving in, fingers clear of it. */
  pregrasp: { x: number; y: number };
  /** The grasp centre is on the lane behind the target: it can go straight in. */
  inLane: boolean;
  /** How far other objects reach into the lane's corridor, summed (m; 0: clear). */
  blocked: number;
  /** How far other objects reach into the hand's path to the pre-grasp point, summed (m; 0: clear). */
  transitBlocked: number;
}

/** Bounding radius of slider i (m). */
function reachOf(geometry: TaskGeometry, i: number): number {
  return footprintReach(geometry.sliders[i]!);
}

/**
 * How far objects other than the target reach into a corridor of half-width `halfWidth` about
 * the line through `origin` along `heading`, between `from` and `to` along it (m, summed).
 */
function corridorBlock(
  geometry: TaskGeometry,
  x: State,
  origin: { x: number; y: number },
  heading: number,
  from: number,
  to: number,
  halfWidth: number,
): number {
  const ux = Math.cos(heading);
  const uy = Math.sin(heading);
  let blocked = 0;
  for (let i = 0; i < geometry.sliders.length; i++) {
    if (i === geometry.goalIndex) continue;
    const o = geometry.layout.sliderPose(x, i);
    const r = reachOf(geometry, i);
    const along = (o.x - origin.x) * ux + (o.y - origin.y) * uy;
    const across = -(o.x - origin.x) * uy + (o.y - origin.y) * ux;
    if (along < from - r || along > to + r) continue;
    blocked += Math.max(0, halfWidth + r - Math.abs(across));
  }
  return blocked;
}

/**
 * The lane to approach the target along: among the straight line and lines turned by up to 60
 * degrees (and the way the hand faces now), the one whose corridor (the hand's width, from behind
 * the palm at the pre-grasp point to the fingertips at the grasp) other objects block least,
 * then the shortest path and the least turning. Lanes that would put the open hand at the
 * pre-grasp point within HAND_MARGIN of the table's edge are not taken.
 */
export function approachLane(geometry: TaskGeometry, x: State): ApproachLane {
  const gripper = geometry.fingers;
  if (!gripper) throw new Error('an approach to grasp needs a gripper scene');
  const L = geometry.layout;
  const p = L.gripperPose(x);
  const t = L.sliderPose(x, geometry.goalIndex);
  const depth = gripper.finger.length / 2 + reachOf(geometry, geometry.goalIndex) + PREGRASP_CLEARANCE;
  const halfWidth = Math.max(gripper.palm.width / 2, gripper.maxOpening / 2 + gripper.finger.thickness);
  const back = depth + gripper.finger.length / 2 + gripper.palm.depth;
  const front = gripper.finger.length / 2;
  const overTable = geometry.table.shrunk(HAND_MARGIN);
  const direct = Math.atan2(t.y - p.y, t.x - p.x);
  const directLength = Math.hypot(t.x - p.x, t.y - p.y);
  const headings = LANE_OFFSETS.map((o) => wrapAngle(direct + o));
  if (Math.abs(wrapAngle(p.yaw - direct)) <= Math.PI / 3) headings.push(p.yaw);

  let best: (ApproachLane & { score: number }) | null = null;
  for (const heading of headings) {
    const ux = Math.cos(heading);
    const uy = Math.sin(heading);
    const pregrasp = { x: t.x - ux * depth, y: t.y - uy * depth };
    const hand = gripperParts(gripper, { ...pregrasp, yaw: heading, opening: gripper.maxOpening });
    if (hand.flatMap(partCorners).some(([cx, cy]) => overTable.excess(cx, cy) > 0)) continue;
    const blocked = corridorBlock(geometry, x, t, heading, -back, front, halfWidth);
    const along = (p.x - t.x) * ux + (p.y - t.y) * uy;
    const across = -(p.x - t.x) * uy + (p.y - t.y) * ux;
    const inLane = along < 0 && Math.abs(across) <= IN_LANE;
    const length = inLane ? directLength : Math.hypot(pregrasp.x - p.x, pregrasp.y - p.y) + depth;
    const score =
      BLOCK_COST * blocked + (length - directLength) + TURN_COST * Math.abs(wrapAngle(heading - p.yaw));
    if (!best || score < best.score) best = { heading, pregrasp, inLane, blocked, transitBlocked: 0, score };
  }
  if (!best) {
    // The open hand too near the table's edge at every pre-grasp point (the target at an edge): straight in.
    return { heading: direct, pregrasp: { x: p.x, y: p.y }, inLane: true, blocked: 0, transitBlocked: 0 };
  }
  // The hand's way to where the lane's last stretch starts (in the lane: up to the pre-grasp distance).
  const end = best.inLane ? t : best.pregrasp;
  const transit = Math.hypot(end.x - p.x, end.y - p.y) - (best.inLane ? depth : 0);
  const transitBlocked =
    transit > 0
      ? corridorBlock(geometry, x, p, Math.atan2(end.y - p.y, end.x - p.x), 0, transit, halfWidth)
      : 0;
  return {
    heading: best.heading,
    pregrasp: best.pregrasp,
    inLane: best.inLane,
    blocked: best.blocked,
    transitBlocked,
  };
}

/**
 * n controls of dt seconds that take the gripper along its approach lane to the target: at
 * `speed` (m/s) when given, else each leg of the path (to the pre-grasp point, then in) at the
 * speed that ends it with its share of the n controls, so the whole arrives at the end of the
 * n-th (a single control only reaches the pre-grasp point); capped by the limits either way. The
 * corner at the pre-grasp point is kept: a control that cut it would drive the hand straight at
 * the target through what the lane goes round. Once there it holds still. When objects lie on the
 * way to the lane the fingers close in transit (nothing gets into a closed hand), unless another
 * object is in the hand already (closing would grip it); they open in time to be fully open at
 * the pre-grasp point.
 */
export function approachTarget(
  geometry: TaskGeometry,
  x: State,
  o: { n: number; dt: number; limits: ControlLimits; speed?: number },
): Control[] {
  const gripper = geometry.fingers;
  if (!gripper) throw new Error('an approach to grasp needs a gripper scene');
  const { maxSpeed, maxYawRate = 0, maxOpeningSpeed = 0 } = o.limits;
  const p = geometry.layout.gripperPose(x);
  const target = geometry.layout.sliderPose(x, geometry.goalIndex);
  const lane = approachLane(geometry, x);
  const waypoints = lane.inLane ? [target] : [lane.pregrasp, target];
  const legs = waypoints.map((w, i) => {
    const from = i === 0 ? p : waypoints[i - 1]!;
    return Math.hypot(w.x - from.x, w.y - from.y);
  });
  const legSpeeds = o.speed !== undefined ? legs.map(() => o.speed!) : legSpeedsFor(legs, o.n, o.dt);
  const depth = Math.hypot(target.x - lane.pregrasp.x, target.y - lane.pregrasp.y);
  // Closed in transit only where objects are on the way, and never onto an object in the hand.
  const closeInTransit = lane.transitBlocked > 0 && !geometry.othersInHand(x).some((d) => d > 0);
  let { yaw, opening } = p;
  let here = { x: p.x, y: p.y };
  let leg = 0;
  let remaining = legs.reduce((a, b) => a + b, 0);
  const out: Control[] = [];
  for (let t = 0; t < o.n; t++) {
    while (leg < waypoints.length - 1 && dist(here, waypoints[leg]!) < 1e-9) leg++;
    const w = waypoints[leg]!;
    const left = dist(here, w);
    const speed = Math.min(legSpeeds[leg]!, maxSpeed);
    const step = Math.min(speed * o.dt, left);
    const yawRate = clamp(wrapAngle(lane.heading - yaw) / o.dt, maxYawRate);
    // Open once what is left of the path is the last stretch plus what the hand travels while the
    // fingers open the rest of the way.
    const openAt =
      depth + (maxOpeningSpeed > 0 ? (speed * (gripper.maxOpening - opening)) / maxOpeningSpeed : 0);
    const wanted = remaining > openAt && closeInTransit ? 0 : gripper.maxOpening;
    const openRate = clamp((wanted - opening) / o.dt, maxOpeningSpeed);
    const next =
      left > 1e-12
        ? { x: here.x + ((w.x - here.x) * step) / left, y: here.y + ((w.y - here.y) * step) / left }
        : w;
    out.push([(next.x - here.x) / o.dt, (next.y - here.y) / o.dt, yawRate, openRate]);
    here = step >= left ? { x: w.x, y: w.y } : next;
    remaining -= step;
    yaw = wrapAngle(yaw + yawRate * o.dt);
    opening += openRate * o.dt;
  }
  return out;
}

const dist = (a: { x: number; y: number }, b: { x: number; y: number }): number =>
  Math.hypot(b.x - a.x, b.y - a.y);

/**
 * Speeds (m/s) that end each leg with its share of n controls of dt: shares in proportion to the
 * legs' lengths, at least one control each while there are controls for both; a single control
 * goes only the first leg.
 */
function legSpeedsFor(legs: number[], n: number, dt: number): number[] {
  if (legs.length === 1) return [legs[0]! / (n * dt)];
  const total = legs[0]! + legs[1]!;
  if (n === 1 || total <= 0) return [legs[0]! / dt, 0];
  const first = Math.min(n - 1, Math.max(1, Math.round((n * legs[0]!) / total)));
  return [legs[0]! / (first * dt), legs[1]! / ((n - first) * dt)];
}

/**
 * The closing reflex (mpc-loop.ts `reflex`): when the goal object lies between the open fingers,
 * close them at the largest opening speed for one control duration (at the clutter scene's
 * 0.1 m/s the fingers close 0.1 m in a 1 s control, enough from the 0.14 m stroke onto the
 * narrowest WAFR object, 0.05 m).
 */
export function closeOnTarget(
  geometry: TaskGeometry,
  limits: ControlLimits,
  duration: number,
): (x: State) => { u: Control; duration: number } | null {
  const close: Control = [0, 0, 0, -(limits.maxOpeningSpeed ?? 0)];
  return (x) => {
    const hand = geometry.hand(x);
    return hand && inHand(hand) ? { u: close, duration } : null;
  };
}
