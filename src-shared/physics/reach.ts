/**
 * Which objects one control can set moving: those the robot's body sweeps past within the
 * control, and, closed over, every object a moving object can push in turn. A prediction that
 * leaves the others out of its MuJoCo model (reach-culled-model.ts) then simulates only these.
 *
 * A bound, from the scene, the state and the control alone:
 * - the robot follows its commanded velocity (velocity actuators of gain mass / timestep,
 *   mjcf.ts): its reference point moves along the commanded (vx, vy) and turns at the commanded
 *   yaw rate. Its body (the gripper's palm and fingers at full opening as one rectangle, the
 *   pusher's disc) is placed at times along the control close enough that no point of it moves
 *   more than `SAMPLE_TRAVEL` between two; an object whose footprint comes within half that plus
 *   `REACH_MARGIN` (contact lag, soft-contact penetration, the actuators' first steps from the
 *   state's own velocity) of one of them is reached;
 * - a reached object is pushed along while in contact, so its centre travels at most as far as
 *   the robot's farthest-moving point, and slides on after release by at most the stopping
 *   distance, on the table's friction (MuJoCo takes the larger friction of a contact pair, so at
 *   least the table's), of `KNOCK` times the robot's fastest point (an impulse at a contact point
 *   gives the body's centre at most the contact point's normal speed, which an elastic knock off
 *   a heavy body doubles; friction adds its share); its body stays within its bounding radius of
 *   that centre, and what it touches in that disc is reached too, with the same travel (a chain
 *   of pushes moves no farther than its first push);
 * - an object moving already (faster than `REST_SPEED`) is simulated, its centre travelling at
 *   most speed * dt (friction only slows it), and what it can touch is reached as above.
 */
import type { Scene } from '#contract/scene';
import { GRIPPER_YAW, layoutForScene, type Control, type State } from '#contract/state';
import { footprintOf, footprintReach, overlap, type Footprint, type Placed } from './geometry2d';

/** Slack on the robot's swept region (m): contact lag, penetration, the actuators' first steps. */
export const REACH_MARGIN = 0.01;
/** Largest travel of any point of the robot between two placements of its body (m). */
export const SAMPLE_TRAVEL = 0.005;
/** A knocked object's centre moves at most this many times the robot's fastest point. */
export const KNOCK = 2.5;
/** An object slower than this (centre speed, and rim speed of its turning; m/s) is at rest. */
export const REST_SPEED = 1e-3;
const GRAVITY = 9.81;

/**
 * The robot's body seen from above, about its reference point, as one footprint: the gripper's
 * palm and both fingers at full opening (a rectangle from the palm's back to the fingertips, the
 * palm's width or the open fingers', whichever is wider; `offset` is its centre ahead of the grasp
 * centre along the hand), the pusher's disc.
 */
export function robotFootprint(scene: Pick<Scene, 'gripper' | 'pusher'>): {
  footprint: Footprint;
  offset: number;
} {
  const g = scene.gripper;
  if (g) {
    const back = g.finger.length / 2 + g.palm.depth;
    const front = g.finger.length / 2;
    return {
      footprint: {
        kind: 'rect',
        hx: (back + front) / 2,
        hy: Math.max(g.palm.width / 2, g.maxOpening / 2 + g.finger.thickness),
      },
      offset: (front - back) / 2,
    };
  }
  if (!scene.pusher) throw new Error('a scene needs a robot to reach anything');
  return { footprint: { kind: 'disc', radius: scene.pusher.radius }, offset: 0 };
}

/**
 * For each slider of the scene (in its order): whether holding control u for dt from state x can
 * move it. A slider marked false ends the control where it began.
 */
export function reachableSliders(
  scene: Pick<Scene, 'gripper' | 'pusher' | 'sliders' | 'table'>,
  x: State,
  u: Control,
  dt: number,
): boolean[] {
  const layout = layoutForScene(scene);
  const gripper = layout.robot === 'gripper';
  const body = robotFootprint(scene);
  const radius = footprintReach(body.footprint) + Math.abs(body.offset);
  const v0 = layout.robotVelocity(x);
  // The fastest any point of the robot moves: translation, turning at its radius, each finger at
  // half the opening speed; the state's own velocity counts while the actuators bring it to u.
  const pointSpeed = (v: readonly number[]): number =>
    Math.hypot(v[0]!, v[1]!) + (gripper ? Math.abs(v[GRIPPER_YAW]!) * radius + Math.abs(v[3]!) / 2 : 0);
  const robotSpeed = Math.max(pointSpeed(u), pointSpeed(v0));
  const travel = robotSpeed * dt;

  const n = layout.sliderCount;
  const placed = (i: number): Placed => ({ footprint: footprintOf(scene.sliders[i]!.shape), ...pose(i) });
  const pose = (i: number): { x: number; y: number; theta: number } => layout.sliderPose(x, i);
  const bound = scene.sliders.map((s) => footprintReach(footprintOf(s.shape)));
  const reached = new Array<boolean>(n).fill(false);
  /** Where a reached object's body can be: a disc about its start. */
  const reach = new Array<number>(n).fill(0);
  let fastest = robotSpeed;
  for (let i = 0; i < n; i++) {
    const v = layout.sliderVelocity(x, i);
    const speed = Math.hypot(v.vx, v.vy) + Math.abs(v.omega) * bound[i]!;
    if (speed > REST_SPEED) {
      reached[i] = true;
      reach[i] = bound[i]! + speed * dt;
      fastest = Math.max(fastest, speed);
    }
  }
  const slide = (KNOCK * fastest) ** 2 / (2 * scene.table.friction * GRAVITY);
  const pushedTravel = Math.max(travel, ...reach.map((r, i) => (reached[i] ? r - bound[i]! : 0))) + slide;

  // The robot's body along the control.
  const samples = Math.max(1, Math.ceil(travel / SAMPLE_TRAVEL));
  const slack = travel / samples / 2 + REACH_MARGIN;
  const yaw0 = gripper ? x[GRIPPER_YAW]! : 0;
  const yawRate = gripper ? u[GRIPPER_YAW]! : 0;
  for (let k = 0; k <= samples; k++) {
    const t = (k / samples) * dt;
    const yaw = yaw0 + yawRate * t;
    const robot: Placed = {
      footprint: body.footprint,
      x: x[0]! + u[0]! * t + body.offset * Math.cos(yaw),
      y: x[1]! + u[1]! * t + body.offset * Math.sin(yaw),
      theta: yaw,
    };
    for (let i = 0; i < n; i++) {
      if (reached[i] || -overlap(robot, placed(i)).depth > slack) continue;
      reached[i] = true;
      reach[i] = bound[i]! + pushedTravel;
    }
  }
  // What moving objects can push, closed over.
  for (let changed = true; changed;) {
    changed = false;
    for (let i = 0; i < n; i++) {
      if (reached[i]) continue;
      const hit = reach.some(
        (r, j) =>
          reached[j] &&
          -overlap({ footprint: { kind: 'disc', radius: r }, ...pose(j) }, placed(i)).depth <= REACH_MARGIN,
      );
      if (!hit) continue;
      reached[i] = true;
      reach[i] = bound[i]! + pushedTravel;
      changed = true;
    }
  }
  return reached;
}
