/**
 * The console's physics fit of a scene's identification runs (Setup view, "Object physics"): what
 * was fitted, the fine model's multi-step prediction error before and after (held-out runs when
 * there were enough, else the fitted ones), and where the fitted physics was saved for the lab's
 * runs of the scene. SI units (m).
 */
import { z } from 'zod';

const spread = z.object({ p50: z.number(), p95: z.number() }).strict();

export const labPhysicsFitSchema = z
  .object({
    scene: z.string(),
    /** Identification runs fitted, and held out for the error. */
    runs: z.number().int(),
    heldOut: z.number().int(),
    estimates: z.array(
      z
        .object({
          parameter: z.string(),
          /** Multiplier of the scene's value, or latency in s. */
          value: z.number(),
          low: z.number(),
          high: z.number(),
          identifiable: z.boolean(),
        })
        .strict(),
    ),
    warnings: z.array(z.string()),
    /** Position error, m: with the scene's physics and with the fitted. */
    before: spread,
    after: spread,
    /** The physics profile written: the lab's runs of this scene plan with it. */
    profile: z.string(),
  })
  .strict();
export type LabPhysicsFit = z.infer<typeof labPhysicsFitSchema>;
