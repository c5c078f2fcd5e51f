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

/**
 * Upper bounds of a scene: a scene file is edited by hand and over the console API, so it is not
 * trusted to stay physical. A faster pusher than the UR5 set-up may move, thousands of obstacles
 * or a vanishing timestep would otherwise reach the robot or hang the physics workers.
 */
export const SCENE_LIMITS = {
  /** Pusher speed the UR5 pushing set-up is built for, m/s. */
  maxPusherSpeed: 0.5,
  /** Sliders: the learned coarse model has four slots. */
  sliders: 4,
  obstacles: 32,
  /** Fine-model timestep, s: below 0.1 ms a rollout takes hours; above 10 ms contacts blow up. */
  fineTimestep: { min: 1e-4, max: 0.01 },
  /** Each side of the table, m: no lab table is larger. */
  tableSize: 5,
  /** Any one body dimension (radius, size, height), m. */
  bodySize: 1,
  /** Mass of a slider, kg. */
  mass: 50,
  /** Friction coefficients. */
  friction: 5,
} as const;

/** A positive length of a body, at most SCENE_LIMITS.bodySize. */
const bodyLength = positive.max(SCENE_LIMITS.bodySize, `must be at most ${SCENE_LIMITS.bodySize} m`);
const frictionCoefficient = nonNegative.max(
  SCENE_LIMITS.friction,
  `must be at most ${SCENE_LIMITS.friction}`,
);

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
    radius: bodyLength.describe('m'),
    height: bodyLength.describe('m'),
  })
  .strict();

export const boxShapeSchema = z
  .object({
    kind: z.literal('box'),
    sizeX: bodyLength.describe('m, full extent along the body x axis'),
    sizeY: bodyLength.describe('m, full extent along the body y axis'),
    height: bodyLength.describe('m'),
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
    mass: positive.max(SCENE_LIMITS.mass, `must be at most ${SCENE_LIMITS.mass} kg`).describe('kg'),
    friction: frictionCoefficient.describe('sliding friction coefficient'),
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

const tableSide = positive.max(SCENE_LIMITS.tableSize, `must be at most ${SCENE_LIMITS.tableSize} m`);

export const tableSchema = z
  .object({
    size: z.object({ x: tableSide, y: tableSide }).strict().describe('m, full extent, centred on the origin'),
    friction: frictionCoefficient,
  })
  .strict();

export const pusherSchema = z
  .object({
    radius: bodyLength.describe('m'),
    height: bodyLength.describe('m'),
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
    maxPusherSpeed: positive
      .max(
        SCENE_LIMITS.maxPusherSpeed,
        `must be at most ${SCENE_LIMITS.maxPusherSpeed} m/s (the UR5 pusher's limit)`,
      )
      .default(0.1)
      .describe('m/s'),
  })
  .strict();

export const integratorSchema = z.enum(['RK4', 'Euler', 'implicitfast']);

export const fineModelSettingsSchema = z
  .object({
    timestep: finite
      .min(SCENE_LIMITS.fineTimestep.min, `must be at least ${SCENE_LIMITS.fineTimestep.min} s`)
      .max(SCENE_LIMITS.fineTimestep.max, `must be at most ${SCENE_LIMITS.fineTimestep.max} s`)
      .default(0.001)
      .describe('s'),
    integrator: integratorSchema.default('RK4'),
  })
  .strict();

/**
 * The fine model the planner predicts with. It is not the world: the execution world (and the
 * virtual lab) keep the scene's own settings (MuJoCo RK4 at 1 ms). Euler at 2 ms costs a tenth of
 * RK4 at 1 ms and ends 4 s off-centre pushes 1.5 mm / 0.9 deg from it, a fifth of the real-world
 * spread (npm run bench -- physics, docs/physics-and-parareal.md).
 */
export const DEFAULT_PREDICTION = { integrator: 'Euler', timestep: 0.002 } as const;

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
    sliders: z
      .array(sliderSchema)
      .min(1, 'needs at least one slider')
      .max(SCENE_LIMITS.sliders, `at most ${SCENE_LIMITS.sliders} sliders (the learned model's slots)`),
    obstacles: z
      .array(obstacleSchema)
      .max(SCENE_LIMITS.obstacles, `at most ${SCENE_LIMITS.obstacles} obstacles`)
      .default([]),
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
