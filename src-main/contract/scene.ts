/**
 * The scene file: everything the physics models, the planner and the lab need to know about the
 * table and the objects on it. SI units throughout (metres, radians, kilograms, seconds); the UI
 * converts to mm/deg for display only.
 *
 * Frame: the table frame, origin at the table centre, z up, z = 0 on the table surface.
 */
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be greater than 0');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

export const planarPoseSchema = z
  .object({
    x: finite.describe('m'),
    y: finite.describe('m'),
    theta: finite.default(0).describe('rad, counter-clockwise about z'),
  })
  .strict();

export const pointSchema = z.object({ x: finite.describe('m'), y: finite.describe('m') }).strict();

export const cylinderShapeSchema = z
  .object({
    kind: z.literal('cylinder'),
    radius: positive.describe('m'),
    height: positive.describe('m'),
  })
  .strict();

export const boxShapeSchema = z
  .object({
    kind: z.literal('box'),
    sizeX: positive.describe('m, full extent along the body x axis'),
    sizeY: positive.describe('m, full extent along the body y axis'),
    height: positive.describe('m'),
  })
  .strict();

export const shapeSchema = z.discriminatedUnion('kind', [cylinderShapeSchema, boxShapeSchema]);

const idSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'must start with a letter and use only letters, digits, _ or -');

export const sliderSchema = z
  .object({
    id: idSchema,
    shape: shapeSchema,
    mass: positive.describe('kg'),
    friction: nonNegative.describe('sliding friction coefficient'),
    pose: planarPoseSchema.describe('initial pose'),
    rigidBody: z.string().min(1).optional().describe('motion-capture rigid-body name'),
  })
  .strict();

export const obstacleSchema = z
  .object({
    id: idSchema,
    shape: shapeSchema,
    pose: planarPoseSchema,
  })
  .strict();

export const tableSchema = z
  .object({
    size: z.object({ x: positive, y: positive }).strict().describe('m, full extent, centred on the origin'),
    friction: nonNegative,
  })
  .strict();

export const pusherSchema = z
  .object({
    radius: positive.describe('m'),
    height: positive.describe('m'),
    position: pointSchema.describe('initial position'),
    rigidBody: z.string().min(1).optional().describe('motion-capture rigid-body name'),
  })
  .strict();

export const goalSchema = z
  .object({
    slider: idSchema.describe('id of the slider that must reach the goal'),
    center: pointSchema,
    radius: positive.describe('m'),
  })
  .strict();

export const limitsSchema = z
  .object({
    maxPusherSpeed: positive.default(0.1).describe('m/s'),
  })
  .strict();

export const integratorSchema = z.enum(['RK4', 'Euler', 'implicitfast']);

export const fineModelSettingsSchema = z
  .object({
    timestep: positive.default(0.001).describe('s'),
    integrator: integratorSchema.default('RK4'),
  })
  .strict();

export const coarseModelSettingsSchema = z
  .object({
    kOmega: nonNegative.default(0.1).describe('ISRR 2019 Eq. 7 gain'),
    maxOmega: positive.default(0.05).describe('rad/s clamp on the coarse angular speed'),
  })
  .strict();

export const sceneSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    table: tableSchema,
    pusher: pusherSchema,
    sliders: z.array(sliderSchema).min(1).max(4),
    obstacles: z.array(obstacleSchema).default([]),
    goal: goalSchema,
    limits: limitsSchema.default({ maxPusherSpeed: 0.1 }),
    fine: fineModelSettingsSchema.default({ timestep: 0.001, integrator: 'RK4' }),
    coarse: coarseModelSettingsSchema.default({ kOmega: 0.1, maxOmega: 0.05 }),
  })
  .strict()
  .superRefine((scene, ctx) => {
    const ids = new Set<string>();
    scene.sliders.forEach((s, i) => {
      if (ids.has(s.id))
        ctx.addIssue({ code: 'custom', path: ['sliders', i, 'id'], message: `duplicate id "${s.id}"` });
      ids.add(s.id);
    });
    scene.obstacles.forEach((o, i) => {
      if (ids.has(o.id))
        ctx.addIssue({ code: 'custom', path: ['obstacles', i, 'id'], message: `duplicate id "${o.id}"` });
      ids.add(o.id);
    });
    const onTable = (p: { x: number; y: number }): boolean =>
      Math.abs(p.x) <= scene.table.size.x / 2 && Math.abs(p.y) <= scene.table.size.y / 2;
    scene.sliders.forEach((s, i) => {
      if (!onTable(s.pose))
        ctx.addIssue({ code: 'custom', path: ['sliders', i, 'pose'], message: 'is off the table' });
    });
    if (!onTable(scene.pusher.position)) {
      ctx.addIssue({ code: 'custom', path: ['pusher', 'position'], message: 'is off the table' });
    }
    if (!onTable(scene.goal.center))
      ctx.addIssue({ code: 'custom', path: ['goal', 'center'], message: 'is off the table' });
    if (!scene.sliders.some((s) => s.id === scene.goal.slider)) {
      ctx.addIssue({
        code: 'custom',
        path: ['goal', 'slider'],
        message: `no slider has id "${scene.goal.slider}" (sliders: ${scene.sliders.map((s) => s.id).join(', ')})`,
      });
    }
  });

export type PlanarPose = z.infer<typeof planarPoseSchema>;
export type Point = z.infer<typeof pointSchema>;
export type Shape = z.infer<typeof shapeSchema>;
export type Slider = z.infer<typeof sliderSchema>;
export type Obstacle = z.infer<typeof obstacleSchema>;
export type Scene = z.infer<typeof sceneSchema>;
/** A scene as written in a file, before defaults are filled in. */
export type SceneInput = z.input<typeof sceneSchema>;
export type Integrator = z.infer<typeof integratorSchema>;

/** Radius of the smallest circle about the body origin that contains the shape's footprint. */
export function boundingRadius(shape: Shape): number {
  return shape.kind === 'cylinder' ? shape.radius : Math.hypot(shape.sizeX, shape.sizeY) / 2;
}
