/**
 * The coarse model a planner predicts with, by kind. The learned model (and TensorFlow.js with
 * it) is imported only when it is chosen, so planner paths with the analytical model never load
 * a TensorFlow backend.
 */
import type { Scene } from '#contract/scene';
import type { CoarsePropagator } from '../parareal/parareal';
import type { CoarseModelKind } from '#contract/planner-settings';
import { AnalyticalCoarseModel } from '#physics/coarse-model';

/**
 * A coarse model ready to predict. The learned one loads from `learnedModelDir` (default: the
 * shipped model) and its backend has started when the promise resolves; a model that cannot
 * serve the scene rejects with GeometryMismatchError or ModelFileError.
 */
export async function loadCoarseModel(
  scene: Scene,
  kind: CoarseModelKind,
  options: { learnedModelDir?: string } = {},
): Promise<CoarsePropagator> {
  if (kind === 'analytical') return new AnalyticalCoarseModel(scene);
  const [{ LearnedCoarseModel }, { tfBackendReady }] = await Promise.all([
    import('../learned/learned-coarse-model'),
    import('../learned/tf-backend'),
  ]);
  const model = LearnedCoarseModel.load(scene, options.learnedModelDir);
  await tfBackendReady();
  return model;
}
