/**
 * Which objects one control can set moving: those the robot's body sweeps past within the
 * control, and, closed over, every object a moving object can push in turn. A prediction that
 * leaves the others out of its MuJoCo model (reach-culled-model.ts) then simulates only these.
 *
 * A bound, from the scene, the state and the control alone:
 * - the robot follows its commanded velocity (velocity actuators of gain mass / timestep,
 *   mjcf.ts): its reference point moves along the commanded (vx, vy) and turns at the commanded
 *   yaw rate. Its body (its tool's envelope: the gripper's palm and fingers at full opening as one
 *   rectangle, the pusher's disc) is placed at times along the control close enough that no point of it moves
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
 * A stochastic execution (TAMPC's samples) also kicks the robot's velocity at every step: its
 * drawn kicks widen the robot's speed and its swept region (noiseReach below).
 */
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { layoutForScene, type Control, type State } from '#contract/state';
import { footprintOf, footprintReach, overlap, type Placed } from './geometry2d';

/** Slack on the robot's swept region (m): contact lag, penetration, the actuators' first steps. */
export const REACH_MARGIN = 0.01;
/** Largest travel of any point of the robot between two placements of its body (m). */
export const SAMPLE_TRAVEL = 0.005;
/** A knocked object's centre moves at most this many times the robot's fastest point. */
export const KNOCK = 2.5;
/** An object slower than this (centre speed, and rim speed of its turning; m/s) is at rest. */
export const REST_SPEED = 1e-3;
const GRAVITY = 9.81;

/** What a phase's process noise adds to the robot's motion: its points' speed (m/s) and its drift off the commanded path (m). */
export interface NoiseReach {
  speed: number;
  drift: number;
}

/**
 * The robot's share of a stochastic phase's drawn kicks (`steps` MuJoCo steps of `stepTime`;
 * `values` from `from` on, `stride` values a step, the robot's DOFs first, in m/s as
 * FineModel.perturbVelocities takes them: the gripper's yaw kick moves its farthest point that
 * fast). A kick n_k is added to the robot's velocity before step k; its velocity actuators
 * (gain mass / timestep, mjcf.ts) shrink a velocity error by a factor c each step: 0 for Euler,
 * 0.375 for RK4, 0.5 for the implicit integrator (and at most that with a contact's lag, which
 * REACH_MARGIN covers). So the error during step k is at most E_k = c E_(k-1) + |n_k| (the
 * kicks' point speeds, the triangle inequality), the robot's points move at most max E_k faster
 * than commanded, and its reference point ends at most the sum of E_k * stepTime off the
 * commanded path (counting each step at the error before the actuators act: for Euler the
 * position moves with the corrected velocity, so the true drift is smaller still).
 */
export function noiseReach(
  scene: ToolEntries & Pick<Scene, 'fine'>,
  values: ArrayLike<number>,
  from: number,
  steps: number,
  stride: number,
  stepTime: number,
): NoiseReach {
  const tool = endEffectorOf(scene);
  const dofs = tool.slots.positions.length;
  // A kick's value is in m/s; its DOF's noise scale makes it the DOF's velocity (fine-model.ts).
  const scales = tool.noiseScales;
  const c = scene.fine.integrator === 'Euler' ? 0 : 0.5;
  const kick = new Array<number>(dofs).fill(0);
  let error = 0;
  let speed = 0;
  let drift = 0;
  for (let k = 0; k < steps; k++) {
    const at = from + k * stride;
    for (let d = 0; d < dofs; d++) kick[d] = values[at + d]! * scales[d]!;
    error = c * error + tool.pointSpeed(kick);
    speed = Math.max(speed, error);
    drift += error * stepTime;
  }
  return { speed, drift };
}

/**
 * For each slider of the scene (in its order): whether holding control u for dt from state x can
 * move it. A slider marked false ends the control where it began. `noise`: a stochastic phase's
 * kicks to the robot (noiseReach), which widen its speed and its swept region.
 */
export function reachableSliders(
  scene: ToolEntries & Pick<Scene, 'sliders' | 'table'>,
  x: State,
  u: Control,
  dt: number,
  noise: NoiseReach = { speed: 0, drift: 0 },
): boolean[] {
  const layout = layoutForScene(scene);
  const tool = endEffectorOf(scene);
  const body = tool.envelope;
  const v0 = layout.robotVelocity(x);
  // The state's own velocity counts while the actuators bring it to u; the noise's kicks on top.
  const robotSpeed = Math.max(tool.pointSpeed(u), tool.pointSpeed(v0)) + noise.speed;
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
  // The noise's drift moves the body off the commanded path by at most noise.drift.
  const slack = travel / samples / 2 + REACH_MARGIN + noise.drift;
  const yaw0 = tool.slots.yaw === undefined ? 0 : x[tool.slots.yaw]!;
  const yawRate = tool.slots.yaw === undefined ? 0 : u[tool.slots.yaw]!;
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
