/**
 * The session log's Foxglove scene of a gripper run (session/foxglove.ts `objectsScene`): the
 * palm and both fingers where the measured state puts them, at its yaw and opening, as the
 * console's table view draws them; no pusher.
 */
import { describe, expect, it } from 'vitest';
import { gripperParts } from '#contract/gripper-geometry';
import { objectsScene } from '../../src-main/session/foxglove';
import { sceneUpdateSchema } from '../../src-main/session/foxglove-schemas';
import { namedState } from '../../src-main/session/named-state';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('wafr-clutter');
const g = scene.gripper!;
const ids = scene.sliders.map((s) => s.id);

describe('the Foxglove scene of a gripper run', () => {
  it('draws the palm and both fingers at the measured yaw and opening', () => {
    const pose = { x: 0.1, y: -0.05, yaw: Math.PI / 2, opening: 0.06 };
    const q = [
      pose.x,
      pose.y,
      pose.yaw,
      pose.opening,
      ...scene.sliders.flatMap((s) => [s.pose.x, s.pose.y, s.pose.theta]),
    ];
    const update = objectsScene(scene, namedState(ids, [...q, ...q.map(() => 0)]), { sec: 1, nsec: 0 });
    expect(sceneUpdateSchema.safeParse(update).success).toBe(true);
    expect(update.entities.map((e) => e.id)).toEqual([...ids.map((id) => `slider/${id}`), 'gripper']);
    const cubes = update.entities.at(-1)!.cubes;
    const parts = gripperParts(g, pose);
    expect(cubes).toHaveLength(3);
    cubes.forEach((c, i) => {
      expect(c.pose.position.x).toBeCloseTo(parts[i]!.x, 12);
      expect(c.pose.position.y).toBeCloseTo(parts[i]!.y, 12);
      // Turned a quarter about z.
      expect(c.pose.orientation.z).toBeCloseTo(Math.SQRT1_2, 12);
      expect(c.size.x).toBeCloseTo(2 * parts[i]!.hx, 12);
      expect(c.size.y).toBeCloseTo(2 * parts[i]!.hy, 12);
    });
    // The fingers' inner faces 60 mm apart: their centres a finger's thickness further.
    expect(Math.abs(cubes[1]!.pose.position.x - cubes[2]!.pose.position.x)).toBeCloseTo(
      0.06 + g.finger.thickness,
      12,
    );
    expect(cubes[0]!.size.z).toBe(g.palm.height);
    expect(cubes[1]!.color).not.toEqual(cubes[0]!.color);
  });
});
