/**
 * How the virtual lab's world differs from the scene the planner knows: factors on the objects'
 * mass and inertia and on the sliding friction of the objects, the pusher and the table, and a
 * motion-capture pipeline that is late and noisier than a calibrated one. A real lab's objects,
 * table and pusher are never the scene file's, nor is its motion capture; this lets the virtual
 * lab be such a lab, so that identifying the physics (docs/physics-fit.md) can be tried against a
 * known truth. Every default leaves the world the scene's.
 */
import { z } from 'zod';
import type { PhysicsScale } from '#physics/fine-model';

const factor = z.number().positive().max(100);

/**
 * Factors on the scene's physical parameters. Friction factors act on the geoms' coefficients:
 * MuJoCo takes the larger of a contact pair's, so an object-table contact slides with
 * max(object, table) and a pusher-object contact with max(pusher, object).
 */
export const worldPhysicsSchema = z
  .object({
    /** On every object's mass (its inertia scales with it). */
    objectMass: factor.default(1),
    /** On every object's rotational inertia, beyond the mass's factor (mass further out or further in). */
    objectInertia: factor.default(1),
    /** On every object's friction coefficient (the scene's `friction` of a slider). */
    objectFriction: factor.default(1),
    /** On the robot's friction coefficient (the pusher's, or the gripper's geoms). */
    pusherFriction: factor.default(1),
    /** On the table's friction coefficient. */
    tableFriction: factor.default(1),
  })
  .strict();

/** The motion-capture pipeline of the world: late and noisy as a real one may be. */
export const worldMocapSchema = z
  .object({
    /**
     * s: each frame shows the table as it was this long before it is sent, and is stamped so
     * (camera mid-exposure that much earlier), as a late pipeline delivers a correctly stamped
     * frame late.
     */
    latency: z.number().min(0).max(0.5).default(0),
    /** m, standard deviation of each streamed position coordinate; absent: a calibrated system's jitter. */
    positionNoise: z.number().min(0).max(0.01).optional(),
  })
  .strict();

export type WorldPhysics = z.infer<typeof worldPhysicsSchema>;
export type WorldMocap = z.infer<typeof worldMocapSchema>;

export const SCENE_PHYSICS: WorldPhysics = worldPhysicsSchema.parse({});

/** Whether a world's physics is the scene's. */
export function isScenePhysics(p: WorldPhysics): boolean {
  return Object.values(p).every((v) => v === 1);
}

/** The fine model's factors for a world's physics. */
export function physicsScale(p: WorldPhysics): PhysicsScale {
  return {
    mass: p.objectMass,
    inertia: p.objectInertia,
    objectFriction: p.objectFriction,
    robotFriction: p.pusherFriction,
    tableFriction: p.tableFriction,
  };
}
