/**
 * Builds the MuJoCo model (MJCF XML) of a scene: the table plane, the robot (a pusher moved in the
 * table plane by two velocity-actuated slide joints, or the gripper of gripper-mjcf.ts), one free
 * body per slider and obstacle geoms that collide with nothing.
 *
 * The pusher: the reference setup drives a light pusher with velocity actuators of gain 1e6, which
 * is only stable with an implicit integrator; under explicit RK4 at 1 ms it diverges (MuJoCo then
 * resets the state). We keep the intent (the pusher follows the command almost exactly) with a
 * heavy pusher and a gain kv = m / dt: the velocity error decays by a factor 0.375 per RK4 step
 * (to 0 per Euler step), and a contact force F leaves a steady lag of F / kv, 0.1 mm/s for the
 * 4 N it takes to slide a 0.5 kg object on the 0.8-friction table.
 */
import { requirePusher, type Pusher, type Scene, type Shape } from '#contract/scene';
import { gripperMjcf } from './gripper-mjcf';

export const PUSHER_MASS = 50;
/**
 * The authors' scene gives the pusher friction 0.2 (MuJoCo takes the larger friction of a contact
 * pair, so pusher-slider contacts are 0.2): the slider slides along the pusher on an off-centre
 * push. With MuJoCo's default of 1 it rolls around the pusher instead (a 10 mm off-centre push of
 * 150 mm turns it 37 deg against 17 deg), which the analytical coarse model does not know.
 */
export const PUSHER_FRICTION = 0.2;
/** Gap between the pusher's bottom and the table: the pusher never touches the table. */
export const PUSHER_CLEARANCE = 0.002;

export function pusherGain(scene: Scene): number {
  return PUSHER_MASS / scene.fine.timestep;
}

/** Height of a slider's centre when it rests on the table. */
export function restHeight(shape: Shape): number {
  return shape.height / 2;
}

function geomShape(shape: Shape): string {
  return shape.kind === 'cylinder'
    ? `type="cylinder" size="${shape.radius} ${shape.height / 2}"`
    : `type="box" size="${shape.sizeX / 2} ${shape.sizeY / 2} ${shape.height / 2}"`;
}

function yawQuat(theta: number): string {
  return `${Math.cos(theta / 2)} 0 0 ${Math.sin(theta / 2)}`;
}

/** The pusher's body and actuator lines: a cylinder on two velocity-actuated slides. */
function pusherMjcf(pusher: Pusher, kv: number): { body: string[]; actuators: string[] } {
  const pusherZ = pusher.height / 2 + PUSHER_CLEARANCE;
  return {
    body: [
      `    <body name="pusher" pos="0 0 ${pusherZ}">`,
      '      <joint name="pusher_x" type="slide" axis="1 0 0"/>',
      '      <joint name="pusher_y" type="slide" axis="0 1 0"/>',
      `      <geom name="pusher" type="cylinder" size="${pusher.radius} ${pusher.height / 2}" mass="${PUSHER_MASS}" friction="${PUSHER_FRICTION} 0.005 0.0001"/>`,
      '    </body>',
    ],
    actuators: [
      `    <velocity name="pusher_vx" joint="pusher_x" kv="${kv}"/>`,
      `    <velocity name="pusher_vy" joint="pusher_y" kv="${kv}"/>`,
    ],
  };
}

export function sceneToMjcf(scene: Scene): string {
  const { table, sliders, obstacles, fine } = scene;
  const robot = scene.gripper
    ? gripperMjcf(scene.gripper, { clearance: PUSHER_CLEARANCE, timestep: fine.timestep })
    : { ...pusherMjcf(requirePusher(scene, 'the MJCF'), pusherGain(scene)), equality: [] };
  const lines: string[] = [];
  lines.push(`<mujoco model="${escapeXml(scene.name)}">`);
  // Elliptic friction cones: MuJoCo's default pyramidal cone makes sliding friction depend on the
  // direction of motion, and a centred push on a cylinder then veers off sideways (64 mm over a
  // 150 mm push with the authors' pusher friction, 2 mm with elliptic cones). impratio 10 makes
  // the frictional constraints stiff, as real dry friction is.
  const solver = fine.solver ?? {};
  const option = [
    `  <option timestep="${fine.timestep}" integrator="${fine.integrator}" cone="elliptic" impratio="10"`,
    solver.iterations === undefined ? '' : ` iterations="${solver.iterations}"`,
    solver.tolerance === undefined ? '' : ` tolerance="${solver.tolerance}"`,
    solver.lsIterations === undefined ? '' : ` ls_iterations="${solver.lsIterations}"`,
  ].join('');
  // Sleeping bodies at rest (a prediction setting, docs/planner.md): resting objects out of the
  // robot's way leave the constraint solver until something touches them.
  if (fine.sleep) lines.push(`${option}>`, '    <flag sleep="enable"/>', '  </option>');
  else lines.push(`${option}/>`);
  lines.push('  <worldbody>');
  // The plane is infinite for collisions; its size is only visual. Leaving the table is the
  // planner's failure check, not the physics'.
  lines.push(
    `    <geom name="table" type="plane" size="${table.size.x / 2} ${table.size.y / 2} 0.01" friction="${table.friction} 0.005 0.0001"/>`,
  );
  // Obstacles are regions to keep out of, not bodies to push against (as in the authors' scene:
  // contype 0, conaffinity 0): the cost and the failure test alone know them. A colliding obstacle
  // would let a predicted push through it look like a slide around it.
  for (const o of obstacles) {
    lines.push(
      `    <geom name="obstacle_${o.id}" ${geomShape(o.shape)} pos="${o.pose.x} ${o.pose.y} ${o.shape.height / 2}" quat="${yawQuat(o.pose.theta)}" contype="0" conaffinity="0"/>`,
    );
  }
  lines.push(...robot.body);
  for (const s of sliders) {
    lines.push(`    <body name="slider_${s.id}" pos="${s.pose.x} ${s.pose.y} ${restHeight(s.shape)}">`);
    lines.push(`      <freejoint name="slider_${s.id}"/>`);
    lines.push(
      `      <geom name="slider_${s.id}" ${geomShape(s.shape)} mass="${s.mass}" friction="${s.friction} 0.005 0.0001"/>`,
    );
    lines.push('    </body>');
  }
  lines.push('  </worldbody>');
  if (robot.equality.length > 0) lines.push('  <equality>', ...robot.equality, '  </equality>');
  lines.push('  <actuator>');
  lines.push(...robot.actuators);
  lines.push('  </actuator>');
  lines.push('</mujoco>');
  return lines.join('\n');
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
