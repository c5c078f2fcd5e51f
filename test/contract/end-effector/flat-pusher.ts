/**
 * A third tool, added by this file alone: a wide flat pusher, a box-shaped face held at a fixed
 * orientation (`theta`, the face's normal) and moved in the table plane, q_R = (x, y) of its
 * centre. A scene names it by `tool: { kind: "flat-pusher", ... }`; importing this file registers
 * it, here and (by its module URL) in the fine workers.
 */
import { z } from 'zod';
import type { EndEffector, EndEffectorKind, ToolSlots } from '#contract/end-effector/end-effector';
import { registerEndEffector } from '#contract/end-effector/registry';

const length = z.number().positive().max(1);
const flatPusherSchema = z
  .object({
    width: length.describe('m, across the push direction'),
    depth: length.describe('m, along the push direction'),
    height: length.describe('m'),
    position: z.object({ x: z.number(), y: z.number() }).strict().describe('initial position of its centre'),
    theta: z.number().default(0).describe('rad, the direction its face pushes in; fixed'),
    rigidBody: z.string().min(1).optional(),
  })
  .strict();
type FlatPusher = z.infer<typeof flatPusherSchema>;

/** As heavy as the built-in pusher, with its gain recipe (contract/end-effector/pusher.ts). */
const MASS = 50;
const FRICTION = 0.2;
const SLOTS: ToolSlots = { name: 'flatPusher', positions: ['x', 'y'], velocities: ['vx', 'vy'], angles: [] };

function flatPusher(p: FlatPusher): EndEffector {
  const hx = p.depth / 2;
  const hy = p.width / 2;
  const c = Math.cos(p.theta);
  const s = Math.sin(p.theta);
  const disc = { kind: 'disc', radius: Math.hypot(hx, hy) } as const;
  return {
    kind: 'flat-pusher',
    title: 'Wide flat pusher',
    slots: SLOTS,
    inputs: [
      { name: 'vx', unit: 'm/s' },
      { name: 'vy', unit: 'm/s' },
    ],
    start: [p.position.x, p.position.y],
    rigidBody: p.rigidBody,
    height: p.height,
    parts: (q) => [{ footprint: { kind: 'rect', hx, hy }, x: q[0]!, y: q[1]!, theta: p.theta }],
    // It never turns: the disc about its centre that holds the face whatever the reach bound's yaw.
    envelope: { footprint: disc, offset: 0 },
    // Its corners in table axes: it keeps its orientation, so its own frame is the table's.
    outline: [
      [-hx, -hy],
      [hx, -hy],
      [hx, hy],
      [-hx, hy],
    ].map(([x, y]) => ({ x: c * x! - s * y!, y: s * x! + c * y! })),
    pointSpeed: (v) => Math.hypot(v[0]!, v[1]!),
    noiseScales: [1, 1],
    speedScales: [1, 1],
    controlLimits: (limits) => ({ maxSpeed: limits.maxPusherSpeed }),
    model: ({ clearance, timestep }) => {
      const kv = MASS / timestep;
      return {
        body: [
          `    <body name="flat_pusher" pos="0 0 ${p.height / 2 + clearance}">`,
          '      <joint name="flat_pusher_x" type="slide" axis="1 0 0"/>',
          '      <joint name="flat_pusher_y" type="slide" axis="0 1 0"/>',
          `      <geom name="flat_pusher" type="box" size="${hx} ${hy} ${p.height / 2}" quat="${Math.cos(p.theta / 2)} 0 0 ${Math.sin(p.theta / 2)}" mass="${MASS}" friction="${FRICTION} 0.005 0.0001"/>`,
          '    </body>',
        ],
        equality: [],
        actuators: [
          `    <velocity name="flat_pusher_vx" joint="flat_pusher_x" kv="${kv}"/>`,
          `    <velocity name="flat_pusher_vy" joint="flat_pusher_y" kv="${kv}"/>`,
        ],
      };
    },
    joints: [['flat_pusher_x'], ['flat_pusher_y']],
    discRadius: undefined,
    fingers: undefined,
  };
}

export const flatPusherKind: EndEffectorKind<FlatPusher> = {
  kind: 'flat-pusher',
  description: 'a wide box-shaped face pushed in the table plane at a fixed orientation (x, y)',
  parse: (entry) => flatPusherSchema.parse(entry),
  create: flatPusher,
  moveStart: (p, at) => ({ ...p, position: { x: at.x, y: at.y } }),
};

registerEndEffector(flatPusherKind, import.meta.url);
