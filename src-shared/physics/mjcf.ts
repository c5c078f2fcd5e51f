/**
 * Builds the MuJoCo model (MJCF XML) of a scene: the table plane, the robot (its tool's bodies,
 * joints and velocity actuators: contract/end-effector), one free body per slider and obstacle
 * geoms that collide with nothing.
 */
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene, Shape } from '#contract/scene';

/** Gap between the tool's bottom and the table: the tool never touches the table. */
export const PUSHER_CLEARANCE = 0.002;

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

export function sceneToMjcf(scene: Scene): string {
  const { table, sliders, obstacles, fine } = scene;
  const robot = endEffectorOf(scene).model({ clearance: PUSHER_CLEARANCE, timestep: fine.timestep });
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
