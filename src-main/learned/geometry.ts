/**
 * The physical setup a data set, and the model trained on it, belongs to. The network is trained
 * for one pusher and one kind of slider (CVS 2020: identical cylinders); a scene with other
 * geometry, mass or friction is refused rather than predicted badly.
 */
import { z } from 'zod';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { MAX_SLIDERS } from './slots';

export const pushGeometrySchema = z
  .object({
    pusherRadius: z.number().positive().describe('m'),
    sliderRadius: z.number().positive().describe('m, every slider is a cylinder of this radius'),
    sliderHeight: z.number().positive().describe('m'),
    sliderMass: z.number().positive().describe('kg'),
    sliderFriction: z.number().nonnegative(),
    tableFriction: z.number().nonnegative(),
  })
  .strict();
export type PushGeometry = z.infer<typeof pushGeometrySchema>;

export class GeometryMismatchError extends Error {
  override name = 'GeometryMismatchError';
}

/** The push geometry of a scene whose sliders are identical cylinders; throws otherwise. */
export function pushGeometryOf(scene: Scene): PushGeometry {
  const tool = endEffectorOf(scene);
  if (tool.discRadius === undefined)
    throw new GeometryMismatchError(
      `the robot is the ${tool.title}; the learned model knows only the cylindrical pusher`,
    );
  if (scene.sliders.length > MAX_SLIDERS)
    throw new GeometryMismatchError(
      `${scene.sliders.length} sliders; the learned model has ${MAX_SLIDERS} slots (at most ${MAX_SLIDERS} sliders)`,
    );
  const first = scene.sliders[0]!;
  if (first.shape.kind !== 'cylinder')
    throw new GeometryMismatchError(
      `slider "${first.id}" is a ${first.shape.kind}; the learned model handles cylinders`,
    );
  const g: PushGeometry = {
    pusherRadius: tool.discRadius,
    sliderRadius: first.shape.radius,
    sliderHeight: first.shape.height,
    sliderMass: first.mass,
    sliderFriction: first.friction,
    tableFriction: scene.table.friction,
  };
  for (const s of scene.sliders) {
    const same =
      s.shape.kind === 'cylinder' &&
      s.shape.radius === g.sliderRadius &&
      s.shape.height === g.sliderHeight &&
      s.mass === g.sliderMass &&
      s.friction === g.sliderFriction;
    if (!same)
      throw new GeometryMismatchError(
        `slider "${s.id}" differs from "${first.id}"; the learned model needs identical cylinders`,
      );
  }
  return g;
}

/**
 * Throws unless the scene has the geometry the model was trained for (relative tolerance 1e-6).
 * Obstacles are allowed: the network never saw one, so (as with the analytical model) only the
 * infeasible-state projection keeps sliders out of them.
 */
export function assertSameGeometry(scene: Scene, trained: PushGeometry): void {
  const actual = pushGeometryOf(scene);
  for (const key of Object.keys(trained) as (keyof PushGeometry)[]) {
    const a = actual[key];
    const t = trained[key];
    if (Math.abs(a - t) > 1e-6 * Math.max(Math.abs(t), 1e-9)) {
      throw new GeometryMismatchError(
        `scene "${scene.name}" has ${key} = ${a}, the learned model was trained for ${t}`,
      );
    }
  }
}
