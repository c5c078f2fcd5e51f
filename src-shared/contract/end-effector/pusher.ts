/**
 * The pusher: a cylinder held upright by the Robotiq's fingers, moved in the table plane (q_R =
 * (x, y) of its axis). It never turns, so it has no yaw.
 *
 * In the fine model it is a cylinder on two velocity-actuated slides. The reference setup drives a
 * light pusher with velocity actuators of gain 1e6, which is only stable with an implicit
 * integrator; under explicit RK4 at 1 ms it diverges (MuJoCo then resets the state). We keep the
 * intent (the pusher follows the command almost exactly) with a heavy pusher and a gain kv = m /
 * dt: the velocity error decays by a factor 0.375 per RK4 step (to 0 per Euler step), and a contact
 * force F leaves a steady lag of F / kv, 0.1 mm/s for the 4 N it takes to slide a 0.5 kg object on
 * the 0.8-friction table.
 */
import { pusherSchema, type Pusher } from '../scene';
import type { EndEffector, EndEffectorKind, ToolSlots } from './end-effector';

/** Its state entries; a state layout without a scene is a pusher's (contract/state.ts). */
export const PUSHER_SLOTS: ToolSlots = {
  name: 'pusher',
  positions: ['x', 'y'],
  velocities: ['vx', 'vy'],
  angles: [],
};

export const PUSHER_MASS = 50;
/**
 * The authors' scene gives the pusher friction 0.2 (MuJoCo takes the larger friction of a contact
 * pair, so pusher-slider contacts are 0.2): the slider slides along the pusher on an off-centre
 * push. With MuJoCo's default of 1 it rolls around the pusher instead (a 10 mm off-centre push of
 * 150 mm turns it 37 deg against 17 deg), which the analytical coarse model does not know.
 */
export const PUSHER_FRICTION = 0.2;

/** A pusher's friction coefficient: its scene's, or the authors'. */
export function pusherFriction(pusher: Pusher): number {
  return pusher.friction ?? PUSHER_FRICTION;
}

export function discPusher(pusher: Pusher): EndEffector {
  const disc = { kind: 'disc', radius: pusher.radius } as const;
  return {
    kind: 'pusher',
    title: 'Cylindrical pusher',
    slots: PUSHER_SLOTS,
    inputs: [
      { name: 'vx', unit: 'm/s' },
      { name: 'vy', unit: 'm/s' },
    ],
    start: [pusher.position.x, pusher.position.y],
    height: pusher.height,
    rigidBody: pusher.rigidBody,
    parts: (q) => [{ footprint: disc, x: q[0]!, y: q[1]!, theta: 0 }],
    envelope: { footprint: disc, offset: 0 },
    outline: [],
    pointSpeed: (v) => Math.hypot(v[0]!, v[1]!),
    noiseScales: [1, 1],
    speedScales: [1, 1],
    controlLimits: (limits) => ({ maxSpeed: limits.maxPusherSpeed }),
    model: ({ clearance, timestep }) => {
      const kv = PUSHER_MASS / timestep;
      return {
        body: [
          `    <body name="pusher" pos="0 0 ${pusher.height / 2 + clearance}">`,
          '      <joint name="pusher_x" type="slide" axis="1 0 0"/>',
          '      <joint name="pusher_y" type="slide" axis="0 1 0"/>',
          `      <geom name="pusher" type="cylinder" size="${pusher.radius} ${pusher.height / 2}" mass="${PUSHER_MASS}" friction="${pusherFriction(pusher)} 0.005 0.0001"/>`,
          '    </body>',
        ],
        equality: [],
        actuators: [
          `    <velocity name="pusher_vx" joint="pusher_x" kv="${kv}"/>`,
          `    <velocity name="pusher_vy" joint="pusher_y" kv="${kv}"/>`,
        ],
      };
    },
    joints: [['pusher_x'], ['pusher_y']],
    discRadius: pusher.radius,
    fingers: undefined,
  };
}

export const pusherKind: EndEffectorKind<Pusher> = {
  kind: 'pusher',
  description: 'a cylinder pushed in the table plane (x, y)',
  parse: (entry) => pusherSchema.parse(entry),
  create: discPusher,
  moveStart: (pusher, at) => ({ ...pusher, position: { x: at.x, y: at.y } }),
};
