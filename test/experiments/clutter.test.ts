/** The clutter sampler (experiments/clutter.ts): reproducible by seed, collision-free at the start. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundingRadius, sceneSchema } from '#contract/scene';
import { sampleClutterScene, TARGET_ID } from '../../src-main/experiments/clutter';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { gripperBodies, handRegion } from '../../src-main/planning/grasp';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { overlap } from '#physics/geometry2d';

const { task, scene } = loadTaskFile(
  path.resolve(import.meta.dirname, '../../resources/tasks/wafr-clutter.json'),
);
const sampling = task.sampling;
if (sampling.kind !== 'clutter') throw new Error('the clutter task samples clutter');

describe('clutter sampler', () => {
  it('is reproducible by seed, and another seed draws another scene', () => {
    const a = sampleClutterScene(scene, sampling, 7);
    expect(sampleClutterScene(scene, sampling, 7)).toEqual(a);
    expect(sampleClutterScene(scene, sampling, 8)).not.toEqual(a);
    // The experiment runner's entry point gives the same scene and its start state.
    const sampled = sampleScene(scene, sampling, 7);
    expect(sampled.scene).toEqual(a);
    expect(new TaskGeometry(a).layout.size).toBe(sampled.x0.length);
  });

  it('places every object on the table, apart from the others and from the open gripper and its hand', () => {
    const g = scene.gripper!;
    for (let seed = 0; seed < 30; seed++) {
      const drawn = sampleClutterScene(scene, sampling, seed);
      expect(sceneSchema.safeParse(drawn).success).toBe(true);
      expect(drawn.sliders).toHaveLength(sampling.objects);
      expect(drawn.goal.slider).toBe(TARGET_ID);
      expect(drawn.goal.grasp).toBe(true);
      const geometry = new TaskGeometry(drawn);
      const { x0 } = sampleScene(scene, sampling, seed);
      expect(geometry.assess(x0)).toEqual({ success: false, failure: null, detail: null });
      const bodies = [
        ...gripperBodies(g, { ...g.pose, yaw: g.pose.theta, opening: g.opening }),
        handRegion(g, { ...g.pose, yaw: g.pose.theta, opening: g.opening })!,
        ...drawn.sliders.map((_, i) => geometry.placedSlider(x0, i)),
      ];
      for (let i = 0; i < bodies.length; i++)
        for (let j = Math.max(i + 1, 4); j < bodies.length; j++)
          expect(overlap(bodies[i]!, bodies[j]!).depth).toBeLessThanOrEqual(-sampling.clearance + 1e-12);
      for (const s of drawn.sliders) {
        expect(Math.abs(s.pose.x)).toBeLessThanOrEqual(drawn.table.size.x / 2 - sampling.edgeMargin);
        expect(Math.abs(s.pose.y)).toBeLessThanOrEqual(drawn.table.size.y / 2 - sampling.edgeMargin);
      }
      // The target fits between the open fingers from any direction, and deep enough that its
      // centre gets between them.
      const target = drawn.sliders.find((s) => s.id === TARGET_ID)!;
      expect(2 * boundingRadius(target.shape)).toBeLessThanOrEqual(g.maxOpening - 2 * sampling.fit);
      expect(boundingRadius(target.shape)).toBeLessThanOrEqual(g.finger.length - sampling.fit);
    }
  });

  it('draws the objects from the WAFR ranges', () => {
    const r = sampling.object;
    for (let seed = 0; seed < 10; seed++) {
      for (const s of sampleClutterScene(scene, sampling, seed).sliders) {
        expect(s.mass).toBeGreaterThanOrEqual(r.mass[0]);
        expect(s.mass).toBeLessThanOrEqual(r.mass[1]);
        if (s.shape.kind === 'cylinder') {
          expect(s.shape.radius).toBeGreaterThanOrEqual(r.cylinderRadius[0]);
          expect(s.shape.radius).toBeLessThanOrEqual(r.cylinderRadius[1]);
        } else {
          expect(Math.max(s.shape.sizeX, s.shape.sizeY)).toBeLessThanOrEqual(r.boxSize[1]);
          expect(Math.min(s.shape.sizeX, s.shape.sizeY)).toBeGreaterThanOrEqual(r.boxSize[0]);
        }
      }
    }
  });

  it('refuses a hand that no target from the ranges fits into, naming why', () => {
    const g = scene.gripper!;
    const stubby = { ...scene, gripper: { ...g, finger: { ...g.finger, length: 0.03 } } };
    expect(() => sampleClutterScene(stubby, sampling, 1)).toThrow(
      /no target drawn from the object ranges fits the gripper's hand \(0\.14 m opening, 0\.03 m fingers\)/,
    );
  });

  it('needs a gripper scene', () => {
    const { gripper: _, ...rest } = scene;
    expect(() =>
      sampleClutterScene(
        { ...rest, pusher: { radius: 0.01, height: 0.1, position: { x: 0, y: 0 } } },
        sampling,
        1,
      ),
    ).toThrow(/needs a gripper scene/);
  });
});
