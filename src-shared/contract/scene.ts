/**
 * The scene file: everything the physics models, the planner and the lab need to know about the
 * table and the objects on it. SI units throughout (metres, radians, kilograms, seconds); the UI
 * converts to mm/deg for display only.
 *
 * Frame: the table frame, origin at the table centre, z up, z = 0 on the table surface.
 */
import { z } from 'zod';
import { SCENE_LIMITS } from './safety-limits';
import { robotIssues } from './end-effector/scene-checks';
import { offTableMessage, outlineProblems, tableRegion } from './table-region';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be greater than 0');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

/**
 * "must be at most 1 m", and, for a value that reads as millimetres typed into a file in metres,
 * how to write it: 14.5 is more than 1 m; scene files are in metres (14.5 mm = 0.0145).
 */
export function lengthLimitMessage(limit: number, value: unknown): string {
  // Ten times the limit and more reads as millimetres: 14.5 for a 14.5 mm radius.
  if (typeof value !== 'number' || !(value >= 10 * limit) || value / 1000 > limit)
    return `must be at most ${limit} m`;
  return `${value} is more than ${limit} m; scene files are in metres (${value} mm = ${value / 1000})`;
}

/** A positive length of a body, at most SCENE_LIMITS.bodySize. */
const bodyLength = positive.max(SCENE_LIMITS.bodySize, {
  error: (issue) => lengthLimitMessage(SCENE_LIMITS.bodySize, issue.input),
});
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

const tableSide = positive.max(SCENE_LIMITS.tableSize, {
  error: (issue) => lengthLimitMessage(SCENE_LIMITS.tableSize, issue.input),
});

export const tableSchema = z
  .object({
    size: z
      .object({ x: tableSide, y: tableSide })
      .strict()
      .describe('m, full extent, centred on the origin; with an outline, its bounding extent'),
    // A wrong count stops the checks that follow: the outline's own check and the positions'
    // on-table checks need a polygon of bounded size.
    outline: z
      .array(pointSchema)
      .min(3, { message: 'needs at least 3 points', abort: true })
      .max(SCENE_LIMITS.outlinePoints, {
        message: `at most ${SCENE_LIMITS.outlinePoints} points`,
        abort: true,
      })
      .optional()
      .describe(
        'm: the table top as a simple polygon, counter-clockwise seen from above, within size; absent: the size rectangle',
      ),
    friction: frictionCoefficient,
  })
  .strict()
  .superRefine((table, ctx) => {
    for (const p of outlineProblems(table))
      ctx.addIssue({
        code: 'custom',
        path: p.point === null ? ['outline'] : ['outline', p.point],
        message: p.message,
      });
  });

export const pusherSchema = z
  .object({
    radius: bodyLength.describe('m'),
    height: bodyLength.describe('m'),
    position: pointSchema.describe('initial position'),
    rigidBody: z.string().min(1).optional().describe('motion-capture rigid-body name'),
    /**
     * Sliding friction coefficient of the pusher's surface; absent: the authors' 0.2
     * (contract/end-effector/pusher.ts PUSHER_FRICTION). A lab's fitted physics sets it.
     */
    friction: frictionCoefficient
      .optional()
      .describe("sliding friction coefficient of the pusher's surface; absent: 0.2"),
  })
  .strict();

/**
 * The Robotiq 2-finger gripper as a planar robot (WAFR 2018 Sec. 4: q_R = {x, y, rotation,
 * gripper}). Its frame: origin at the grasp centre (midway between the fingers' inner faces and
 * halfway along them), x forward (palm to fingertips), y across (the fingers close along it). The
 * palm lies behind the fingers; the fingers slide symmetrically along y. Everything moves in the
 * table plane, a little above the table, driven by velocities as the pusher is (contract/end-effector/parallel-gripper.ts).
 */
export const gripperSchema = z
  .object({
    palm: z
      .object({
        depth: bodyLength.describe('m, along the forward axis'),
        width: bodyLength.describe('m, across (the fingers slide along it)'),
        height: bodyLength.describe('m'),
      })
      .strict(),
    finger: z
      .object({
        length: bodyLength.describe('m, along the forward axis (the contact pad)'),
        thickness: bodyLength.describe('m, across'),
        height: bodyLength.describe('m'),
      })
      .strict(),
    maxOpening: positive
      .max(
        SCENE_LIMITS.gripperOpening,
        `must be at most ${SCENE_LIMITS.gripperOpening} m (the Robotiq 2F-140's stroke)`,
      )
      .describe("m, gap between the fingers' inner faces fully open"),
    pose: planarPoseSchema.describe('initial pose of the grasp centre; theta: the forward direction'),
    opening: nonNegative.describe('m, initial gap between the fingers'),
    rigidBody: z.string().min(1).optional().describe('motion-capture rigid-body name'),
  })
  .strict()
  .superRefine((g, ctx) => {
    if (g.opening > g.maxOpening)
      ctx.addIssue({
        code: 'custom',
        path: ['opening'],
        message: `must be at most maxOpening (${g.maxOpening} m)`,
      });
    const span = g.maxOpening + 2 * g.finger.thickness;
    if (g.palm.width < span)
      ctx.addIssue({
        code: 'custom',
        path: ['palm', 'width'],
        message: `must hold the open fingers: at least maxOpening + 2 finger thicknesses (${span} m)`,
      });
  });

export const goalSchema = z
  .object({
    slider: idSchema.describe('id of the slider that must reach the goal'),
    center: pointSchema,
    radius: positive.describe('m'),
    /**
     * true: the task is done when the gripper holds this slider (planning/outcome.ts, anywhere on
     * the table); center and radius then only mark where it is expected, for display. Needs a
     * gripper. Absent: the slider must reach the region.
     */
    grasp: z.literal(true).optional(),
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
      .describe("m/s, the robot's translational speed (the pusher's or the gripper's)"),
    /** Gripper only (and required there): the largest yaw rate. */
    maxYawRate: positive
      .max(
        SCENE_LIMITS.maxYawRate,
        `must be at most ${SCENE_LIMITS.maxYawRate} rad/s (the UR5 wrist's limit)`,
      )
      .optional()
      .describe('rad/s'),
    /** Gripper only (and required there): the largest speed of the opening between the fingers. */
    maxOpeningSpeed: positive
      .max(
        SCENE_LIMITS.maxOpeningSpeed,
        `must be at most ${SCENE_LIMITS.maxOpeningSpeed} m/s (the Robotiq gripper's fastest)`,
      )
      .optional()
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
    /**
     * MuJoCo's body sleeping: an object that has come to rest stops being simulated until an
     * awake body touches it, so objects the robot does not reach cost (almost) nothing per step.
     * Absent: off, and the model is exactly the one without the option.
     */
    sleep: z.boolean().optional(),
    /**
     * Predictions simulate, per control, only the objects the robot can set moving within it (its
     * body swept along the commanded motion, and what a pushed object can push in turn); the others
     * are left out of that control's MuJoCo model and keep their state (physics/reach.ts). Applies
     * to the planner's noise-free fine jobs, not to the execution world or TAMPC's noisy samples.
     * Absent: off, every object simulated.
     */
    onlyReachable: z.boolean().optional(),
    /**
     * MuJoCo's constraint solver stopping rules (<option iterations tolerance ls_iterations>):
     * Newton iterations per step, the relative cost improvement below which it stops, and line
     * search iterations per Newton step. The solver is about half of a contact-rich step's time,
     * and MuJoCo's defaults (100, 1e-8, 50) solve far tighter than a prediction within the
     * real-world spread needs. Absent: MuJoCo's defaults, and the model is exactly the one
     * without the option.
     */
    solver: z
      .object({
        iterations: z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'),
        tolerance: nonNegative.max(0.1, 'must be at most 0.1'),
        lsIterations: z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'),
      })
      .partial()
      .strict()
      .optional(),
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
    /**
     * The robot, exactly one: a pusher (every scene before the gripper), a gripper, or a tool of a
     * kind registered in contract/end-effector/registry.ts, whose fields that kind checks.
     */
    pusher: pusherSchema.optional(),
    gripper: gripperSchema.optional(),
    tool: z
      .looseObject({ kind: z.string().min(1).describe('a registered kind of tool (contract/end-effector)') })
      .optional(),
    sliders: z
      .array(sliderSchema)
      .min(1, 'needs at least one slider')
      .max(SCENE_LIMITS.sliders, `at most ${SCENE_LIMITS.sliders} sliders`),
    obstacles: z
      .array(obstacleSchema)
      .max(SCENE_LIMITS.obstacles, `at most ${SCENE_LIMITS.obstacles} obstacles`)
      .default([]),
    goal: goalSchema,
    limits: limitsSchema.default({ maxPusherSpeed: 0.1 }),
    fine: fineModelSettingsSchema.default({ timestep: 0.001, integrator: 'RK4' }),
    coarse: coarseModelSettingsSchema.default({ kOmega: 0.1, maxOmega: 0.05 }),
    /**
     * A physics profile (`parapush physics fit`) whose object masses and frictions and table
     * friction this scene takes, a path relative to the scene file; the scene file loader applies it.
     */
    physics: z.string().min(1).optional(),
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
    // A broken outline is reported by the table's own check; positions judged against it would
    // only add noise.
    const table = outlineProblems(scene.table).length === 0 ? tableRegion(scene.table) : null;
    const offTable = (p: { x: number; y: number }, path: (string | number)[]): void => {
      if (table && !table.contains(p.x, p.y))
        ctx.addIssue({ code: 'custom', path, message: offTableMessage(p, scene.table) });
    };
    scene.sliders.forEach((s, i) => offTable(s.pose, ['sliders', i, 'pose']));
    robotIssues(scene, ctx, offTable);
    offTable(scene.goal.center, ['goal', 'center']);

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
export type Pusher = z.infer<typeof pusherSchema>;
export type Gripper = z.infer<typeof gripperSchema>;

/** Radius of the smallest circle about the body origin that contains the shape's footprint. */
export function boundingRadius(shape: Shape): number {
  return shape.kind === 'cylinder' ? shape.radius : Math.hypot(shape.sizeX, shape.sizeY) / 2;
}
