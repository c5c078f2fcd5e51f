/**
 * Scene files as the scene-schema tests write them: the smallest valid one, and the problems the
 * loader names in a broken copy.
 */
import { expect } from 'vitest';
import { parseScene, SceneFileError } from '#contract/scene-file';

/** The smallest scene a file may hold: a 1 x 0.8 m table, the pusher, one cylinder and its goal. */
export function minimalSceneJson() {
  return {
    name: 't',
    table: { size: { x: 1, y: 0.8 }, friction: 0.8 },
    pusher: { radius: 0.0145, height: 0.11, position: { x: -0.3, y: 0 } },
    sliders: [
      {
        id: 'a',
        shape: { kind: 'cylinder', radius: 0.05, height: 0.02 },
        mass: 0.5,
        friction: 0.2,
        pose: { x: 0, y: 0 },
      },
    ],
    goal: { slider: 'a', center: { x: 0.2, y: 0 }, radius: 0.05 },
  };
}

/**
 * The problems (each with the field it is in) the loader refuses a copy of `scene` with once
 * `mutate` has broken it; the test fails if the copy is accepted.
 */
export function sceneProblems<S>(scene: S, mutate: (s: S) => void): { path: string; message: string }[] {
  const s = structuredClone(scene);
  mutate(s);
  try {
    parseScene(s, 'bad.json');
  } catch (e) {
    expect(e).toBeInstanceOf(SceneFileError);
    return (e as SceneFileError).problems;
  }
  throw new Error('scene was accepted');
}
