/**
 * A physics profile: the physical parameters of a lab's objects and table as fitted to its own
 * session logs (`parapush physics fit`, src-main/lab-physics/), with where they came from (the
 * logs and their hashes, the commit, the command). A scene names one in `physics` (the scene file
 * loader applies it: common/config-files.ts); `applyPhysicsProfile` puts its values into a scene of
 * the same objects, so the planner and the fine model predict with the lab's physics.
 */
import { z } from 'zod';
import type { Scene } from './scene';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const positive = finite.refine((v) => v > 0, 'must be greater than 0');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

export const FITTABLE = ['mass', 'friction', 'table', 'latency'] as const;
export const fittableSchema = z.enum(FITTABLE);
export type Fittable = z.infer<typeof fittableSchema>;

/** What each fitted parameter means, in the words the reports use. */
export const FITTABLE_MEANING: Record<Fittable, string> = {
  mass: "objects' mass (and so inertia: MuJoCo derives it from mass and shape)",
  friction: "pusher-object friction (the pusher's and the objects' coefficients alike)",
  table: "object-table friction (the table's coefficient)",
  latency: 'motion-capture latency',
};

const errorSummarySchema = z
  .object({
    position: z.object({ p50: nonNegative, p95: nonNegative, rms: nonNegative }).strict().describe('m'),
    yaw: z.object({ p50: nonNegative, p95: nonNegative, rms: nonNegative }).strict().describe('rad'),
    count: z.number().int().min(0),
  })
  .strict();

export const physicsProfileSchema = z
  .object({
    format: z.literal('parapush-physics-profile'),
    version: z.literal(1),
    /** The scene the profile was fitted for (its objects must match a scene it is applied to). */
    scene: z.string().min(1),
    objects: z
      .array(
        z
          .object({
            id: z.string().min(1),
            mass: positive.describe('kg'),
            friction: positive.describe('sliding friction coefficient'),
          })
          .strict(),
      )
      .min(1),
    table: z.object({ friction: positive }).strict(),
    /** The pusher the runs were made with (a fit replays pusher runs only). */
    pusher: z.object({ friction: positive.describe('sliding friction coefficient') }).strict(),
    mocap: z.object({ latency: nonNegative.describe('s') }).strict(),
    fit: z
      .object({
        /** The parameters fitted; the others are the scene's. */
        parameters: z.array(fittableSchema),
        /** Each fitted parameter's multiplier of the scene's value (latency: its value, s), with a 1-sigma interval. */
        estimates: z.array(
          z
            .object({
              parameter: fittableSchema,
              value: finite,
              low: finite,
              high: finite,
              identifiable: z.boolean(),
            })
            .strict(),
        ),
        /** Plain warnings: parameters that trade off, and which combination the logs determine. */
        warnings: z.array(z.string()),
        /** Multi-step prediction error on the held-out runs, before (the scene's physics) and after. */
        heldOut: z
          .object({ runs: z.number().int().min(0), before: errorSummarySchema, after: errorSummarySchema })
          .strict()
          .nullable(),
        training: z.object({ before: errorSummarySchema, after: errorSummarySchema }).strict(),
      })
      .strict(),
    provenance: z
      .object({
        logs: z.array(
          z
            .object({
              file: z.string(),
              sha256: z.string().regex(/^[0-9a-f]{64}$/),
              use: z.enum(['fit', 'held-out']),
            })
            .strict(),
        ),
        commit: z.string().nullable(),
        command: z.array(z.string()),
        createdAt: z.string(),
      })
      .strict(),
  })
  .strict();
export type PhysicsProfile = z.infer<typeof physicsProfileSchema>;

export class PhysicsProfileError extends Error {
  override name = 'PhysicsProfileError';
}

/**
 * The scene with the profile's masses and frictions; its objects must be the profile's. A scene
 * whose robot is not a pusher keeps its robot's friction: the profile's was fitted for a pusher.
 */
export function applyPhysicsProfile(
  scene: Scene,
  profile: PhysicsProfile,
  source = 'the physics profile',
): Scene {
  const sliders = scene.sliders.map((s) => {
    const fitted = profile.objects.find((o) => o.id === s.id);
    if (!fitted)
      throw new PhysicsProfileError(
        `${source} has no object "${s.id}" (it has ${profile.objects.map((o) => o.id).join(', ')}): it was fitted for scene "${profile.scene}"`,
      );
    return { ...s, mass: fitted.mass, friction: fitted.friction };
  });
  return {
    ...scene,
    table: { ...scene.table, friction: profile.table.friction },
    sliders,
    ...(scene.pusher ? { pusher: { ...scene.pusher, friction: profile.pusher.friction } } : {}),
  };
}
