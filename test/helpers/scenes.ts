/** Scene fixtures for tests: the shipped reference scenes, loaded through the real file loader. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSceneFile } from '../../src-main/common/config-files';
import type { Scene } from '#contract/scene';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function referenceScene(name: string): Scene {
  return loadSceneFile(path.join(repoRoot, 'resources/scenes', `${name}.json`));
}

/** The isrr-obstacle scene with the obstacle removed: free pushing on an open table. */
export function openTableScene(sliders = 1): Scene {
  const base = referenceScene('cvs-multi-object');
  return {
    ...base,
    obstacles: [],
    sliders: base.sliders.slice(0, sliders),
    goal: { ...base.goal, slider: base.sliders[0]!.id },
  };
}
