/**
 * A virtual lab whose world differs from its scene (virtual-lab/world-physics.ts): each factor
 * changes what the world's MuJoCo model does, measured on the same push with and without it.
 * No real time here: the world's model is stepped directly (FineModel.scalePhysics, as
 * LabWorld.create applies it).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initialState, type State } from '#contract/state';
import { FineModel } from '#physics/fine-model';
import { loadSceneFile } from '../../src-main/common/config-files';
import {
  physicsScale,
  SCENE_PHYSICS,
  worldPhysicsSchema,
  type WorldPhysics,
} from '../../src-main/virtual-lab/world-physics';
import { repoRoot } from '../helpers/scenes';

const scene = loadSceneFile(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'));
const models: FineModel[] = [];
afterAll(() => models.forEach((m) => m.dispose()));

interface Push {
  /** The object's pose at the end of the push and after it came to rest. */
  end: { x: number; y: number; theta: number };
  rest: { x: number; y: number; theta: number };
  /** The robot's contact force in the table plane, averaged over the push's second half (N). */
  force: number;
}

/**
 * The pusher `offset` m to the side of the object's centre pushes it along +x at `speed` m/s for
 * `duration` s, then holds still for a second.
 */
async function push(
  physics: Partial<WorldPhysics>,
  o: { offset: number; speed: number; duration: number },
): Promise<Push> {
  const fine = await FineModel.create(scene);
  models.push(fine);
  fine.scalePhysics(physicsScale({ ...SCENE_PHYSICS, ...physics }));
  const L = fine.layout;
  const x: State = initialState(scene);
  L.setPusher(x, scene.pusher!.position.x, o.offset);
  fine.writeState(x);
  const n = fine.stepsFor(o.duration);
  let force = 0;
  fine.advanceNoisy(
    [o.speed, 0],
    o.duration,
    0,
    () => 0,
    (k) => {
      if (k > n / 2) force += fine.robotContactForce() / (n - Math.floor(n / 2));
    },
  );
  const end = L.sliderPose(fine.readState(), 0);
  fine.advanceNoisy([0, 0], 1, 0, () => 0);
  return { end, rest: L.sliderPose(fine.readState(), 0), force };
}

const steady = { offset: 0, speed: 0.05, duration: 1 };
const offCentre = { offset: 0.025, speed: 0.1, duration: 1 };
const flick = { offset: 0.03, speed: 0.3, duration: 0.2 };

describe('a world that differs from the scene', () => {
  it('defaults to the scene: every factor 1', () => {
    expect(worldPhysicsSchema.parse({})).toEqual({
      objectMass: 1,
      objectInertia: 1,
      objectFriction: 1,
      pusherFriction: 1,
      tableFriction: 1,
    });
  });

  it('a heavier object takes more force to push (friction on the table grows with its weight)', async () => {
    const base = await push({}, steady);
    const heavy = await push({ objectMass: 1.6 }, steady);
    // Sliding on the table: about mu m g = 0.8 * 0.5 * 9.81 = 3.9 N (MuJoCo: 4.6 N).
    expect(base.force).toBeGreaterThan(3.5);
    expect(base.force).toBeLessThan(5);
    expect(heavy.force / base.force).toBeCloseTo(1.6, 1);
  });

  it('a slicker table takes less force to push the object across, and lets it slide further', async () => {
    const base = await push({}, steady);
    const slick = await push({ tableFriction: 0.75 }, steady);
    expect(slick.force / base.force).toBeCloseTo(0.75, 1);
    const fast = { offset: 0, speed: 0.3, duration: 0.2 };
    const slid = (p: Push): number => p.rest.x - p.end.x;
    expect(slid(await push({ tableFriction: 0.75 }, fast))).toBeGreaterThan(
      slid(await push({}, fast)) + 0.001,
    );
  });

  it('a grippier object (object friction x1.5: pusher-object 0.3) turns differently on an off-centre push', async () => {
    const base = await push({}, offCentre);
    const grippy = await push({ objectFriction: 1.5 }, offCentre);
    expect(Math.abs(grippy.end.theta - base.end.theta)).toBeGreaterThan((2 * Math.PI) / 180);
  });

  it('a grippier pusher turns the object differently on an off-centre push', async () => {
    const base = await push({}, offCentre);
    const grippy = await push({ pusherFriction: 2 }, offCentre);
    expect(Math.abs(grippy.end.theta - base.end.theta)).toBeGreaterThan((2 * Math.PI) / 180);
  });

  it('more inertia (mass further out) changes how an off-centre flick turns the object', async () => {
    const base = await push({}, flick);
    const wide = await push({ objectInertia: 2 }, flick);
    expect(Math.abs(wide.rest.theta - base.rest.theta)).toBeGreaterThan((0.5 * Math.PI) / 180);
  });
});
