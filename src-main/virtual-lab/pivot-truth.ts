/**
 * Where the virtual Motive puts each rigid body's pivot. Motive puts a new rigid body's pivot at
 * the centroid of its markers and its axes along the world axes at the moment it was created
 * (OptiTrack documentation: Rigid Body properties, Builder pane), so a real lab's bodies are
 * streamed at their markers, not at the objects: markers on top of a pusher, off-centre on an
 * object, and each body turned by the object's yaw when it was created. The virtual lab is as
 * untidy by default: the pusher's markers 8 cm up and 13 mm off its axis, each slider's 1-3 cm off
 * its centre with a creation yaw of 0.2-0.6 rad (lab config `mocap.pivots` sets any body; all
 * zeros is a pivot reset onto the object).
 */
import { z } from 'zod';
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Vec3 } from '#contract/geometry';
import type { Pivots } from '../calibration/pivots';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

export const pivotTruthSchema = z
  .object({
    /** The markers' centroid in the object's frame (z up from the object's reference point), m. */
    markers: z.tuple([finite, finite, finite]),
    /** The object's yaw in Motive's frame when the body was created, rad. */
    creationYaw: finite,
  })
  .strict();
export type PivotTruth = z.infer<typeof pivotTruthSchema>;

/** The pusher's markers: a tree on its top, 8 cm above the tip and off its axis. */
export const DEFAULT_PUSHER_PIVOT: PivotTruth = { markers: [0.011, -0.007, 0.08], creationYaw: 0.35 };
/** Sliders' markers, taken in turn: off-centre on top of each object, created at various yaws. */
export const DEFAULT_SLIDER_PIVOTS: readonly PivotTruth[] = [
  { markers: [0.018, -0.011, 0.01], creationYaw: 0.45 },
  { markers: [-0.013, 0.021, 0.01], creationYaw: 0.25 },
  { markers: [0.009, 0.024, 0.01], creationYaw: 0.6 },
  { markers: [-0.022, -0.012, 0.01], creationYaw: 0.2 },
];

/**
 * Each body's pivot on this scene: the config's (by rigid-body name) or the default. A gripper's
 * body keeps its pivot on the grasp centre with the gripper's axes (a gripper body is made so).
 */
export function scenePivots(
  scene: ToolEntries,
  names: readonly string[],
  configured: Readonly<Record<string, PivotTruth>> = {},
): Record<string, PivotTruth> {
  const out: Record<string, PivotTruth> = {};
  const [robot, ...sliders] = names;
  const centred: PivotTruth = { markers: [0, 0, 0], creationYaw: 0 };
  if (robot)
    out[robot] = configured[robot] ?? (endEffectorOf(scene).fingers ? centred : DEFAULT_PUSHER_PIVOT);
  sliders.forEach((name, i) => {
    out[name] = configured[name] ?? DEFAULT_SLIDER_PIVOTS[i % DEFAULT_SLIDER_PIVOTS.length]!;
  });
  return out;
}

/**
 * The true pivot offsets a calibration should find (calibration/pivots.ts): the object from its
 * pivot is the markers' centroid undone, in the body's axes (turned by the creation yaw).
 */
export function truePivotOffsets(pivots: Readonly<Record<string, PivotTruth>>): Pivots {
  return Object.fromEntries(
    Object.entries(pivots).map(([name, p]) => {
      const c = Math.cos(p.creationYaw);
      const s = Math.sin(p.creationYaw);
      const [mx, my, mz] = p.markers;
      const position: Vec3 = [-(c * mx - s * my), -(s * mx + c * my), -mz];
      return [name, { position, yaw: p.creationYaw, method: 'truth' as const }];
    }),
  );
}
