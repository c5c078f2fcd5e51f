/**
 * Grasping in clutter (WAFR 2018 Sec. 7.2, Fig. 7): "randomly generated scenes containing boxes
 * and cylinders" with a target among them for the gripper to grasp. From the task's scene (its
 * table, gripper and limits) and a seed, draws:
 * - each object's shape, size, mass and friction from the WAFR fn. 1 ranges (sampleObject), the
 *   target from a stream of its own and again until it fits into the open hand from any direction
 *   (the approach does not know the target's orientation): its bounding diameter at most the
 *   stroke less `fit` on each side, and its bounding radius at most the finger length less `fit`,
 *   so that with its back at the palm its centre lies `fit` inside the fingertips, where closing
 *   fingers hold it (planning/grasp.ts). A target too deep for the fingers can only be pushed.
 * - each object's position uniformly on the table, `edgeMargin` inside the edges, and its yaw
 *   uniformly, again until it keeps `clearance` from every object placed before and from the
 *   gripper's palm, its open fingers and the space between them; the target is placed first, so the others crowd around it.
 * The drawn scene keeps the gripper's start and holds the target as the goal slider ("target"),
 * with a grasp goal whose region marks the target's start.
 */
import { endEffectorOf } from '#contract/end-effector/registry';
import { boundingRadius, sceneSchema, type Gripper, type Scene, type Slider } from '#contract/scene';
import { deriveSeed, Rng } from '../common/rng';
import type { Sampling } from '../planning/task-file';
import { gripperBodies, handRegion } from '../planning/grasp';
import { footprintOf, overlap, type Placed } from '#physics/geometry2d';
import { sampleObject } from './object-sampling';

export type ClutterSampling = Extract<Sampling, { kind: 'clutter' }>;

/** Id of the target object in a drawn clutter scene. */
export const TARGET_ID = 'target';

/** Draws per object before a scene is declared too crowded to place. */
const PLACEMENT_ATTEMPTS = 2000;

/** Draws of the target's shape before its ranges are declared unable to fit the gripper. */
const TARGET_ATTEMPTS = 1000;

export function sampleClutterScene(scene: Scene, sampling: ClutterSampling, seed: number): Scene {
  const gripper = endEffectorOf(scene).fingers;
  if (!gripper) throw new Error(`scene "${scene.name}": clutter sampling needs a gripper scene`);
  const target = drawTarget(gripper, sampling, deriveSeed(seed, 'target'));
  const objects = [
    target,
    ...Array.from({ length: sampling.objects - 1 }, (_, i) =>
      sampleObject(sampling.object, deriveSeed(seed, `object-${i + 1}`)),
    ),
  ];
  const rng = new Rng(deriveSeed(seed, 'placement'));
  const open = { ...gripper.pose, yaw: gripper.pose.theta, opening: gripper.maxOpening };
  // The open hand's space counts as taken: a run does not start with an object in the hand.
  const placed: Placed[] = [...gripperBodies(gripper, open), handRegion(gripper, open)!];
  const half = {
    x: scene.table.size.x / 2 - sampling.edgeMargin,
    y: scene.table.size.y / 2 - sampling.edgeMargin,
  };
  const sliders: Slider[] = objects.map((o, i) => {
    const id = i === 0 ? TARGET_ID : `object${i}`;
    for (let attempt = 0; attempt < PLACEMENT_ATTEMPTS; attempt++) {
      const pose = {
        x: rng.between(-half.x, half.x),
        y: rng.between(-half.y, half.y),
        theta: rng.between(-Math.PI, Math.PI),
      };
      const body: Placed = { footprint: footprintOf(o.shape), ...pose };
      if (placed.every((p) => overlap(p, body).depth <= -sampling.clearance)) {
        placed.push(body);
        return { id, ...o, pose };
      }
    }
    throw new Error(
      `scene "${scene.name}", seed ${seed}: no room for object ${i + 1} of ${objects.length} after ${PLACEMENT_ATTEMPTS} draws`,
    );
  });
  const start = sliders[0]!.pose;
  const drawn: Scene = {
    ...scene,
    sliders,
    goal: {
      slider: TARGET_ID,
      center: { x: start.x, y: start.y },
      radius: boundingRadius(target.shape),
      grasp: true,
    },
  };
  const checked = sceneSchema.safeParse(drawn);
  if (!checked.success)
    throw new Error(
      `scene "${scene.name}", seed ${seed}: the drawn clutter is not a valid scene (${checked.error.issues[0]?.path.join('.')}: ${checked.error.issues[0]?.message})`,
    );
  return drawn;
}

function drawTarget(
  gripper: Gripper,
  sampling: ClutterSampling,
  seed: number,
): ReturnType<typeof sampleObject> {
  const widest = gripper.maxOpening - 2 * sampling.fit;
  const deepest = gripper.finger.length - sampling.fit;
  for (let k = 0; k < TARGET_ATTEMPTS; k++) {
    const o = sampleObject(sampling.object, deriveSeed(seed, k));
    const r = boundingRadius(o.shape);
    if (2 * r <= widest && r <= deepest) return o;
  }
  throw new Error(
    `no target drawn from the object ranges fits the gripper's hand (${gripper.maxOpening} m opening, ${gripper.finger.length} m fingers) with ${sampling.fit} m to spare`,
  );
}
