/**
 * The learned coarse model as a Parareal coarse propagator. stepBatch() runs every state of a
 * batch through the network in one call (the coarse sweep of all rollouts of an optimizer
 * iteration at once); step() is a batch of one.
 *
 * The pusher follows the command exactly; slider poses and velocities come from the network;
 * the result is projected to a feasible state like the analytical model's, because a regression
 * model can leave bodies slightly inside each other.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Scene } from '../contract/scene';
import { layoutForScene, type State, type StateLayout } from '../contract/state';
import {
  projectFeasible,
  projectionGeometry,
  type ProjectionGeometry,
} from '../../src-workers/physics/projection';
import { applyOutput, encodeInput, INPUT_SIZE, OUTPUT_SIZE } from './features';
import { assertSameGeometry } from './geometry';
import { loadLearnedModel, type LearnedModelFile } from './model-file';
import { disposeMlp, forward, mlpFromWeights, type Mlp } from './network';
import { standardize, unstandardize } from './normalization';
import { padState, paddedLayout, unpadState } from './slots';
import { tf } from './tf-backend';

/** The model shipped with Parapush (trained by `parapush learn train`, see its model card). */
export const defaultLearnedModelDir = path.resolve(
  fileURLToPath(new URL('../..', import.meta.url)),
  'resources',
  'models',
  'cvs-learned',
);

export class LearnedCoarseModel {
  readonly layout: StateLayout;
  private readonly projection: ProjectionGeometry;
  /** Built on first use: tensors need a started backend (tfBackendReady), construction does not. */
  private mlp: Mlp | undefined;

  constructor(
    scene: Scene,
    readonly file: LearnedModelFile,
  ) {
    assertSameGeometry(scene, file.meta.geometry);
    this.layout = layoutForScene(scene);
    this.projection = projectionGeometry(scene);
  }

  /** Loads `dir`, else $PARAPUSH_LEARNED_MODEL (a model directory of your own), else the shipped model. */
  static load(scene: Scene, dir?: string): LearnedCoarseModel {
    return new LearnedCoarseModel(
      scene,
      loadLearnedModel(dir ?? process.env.PARAPUSH_LEARNED_MODEL ?? defaultLearnedModelDir),
    );
  }

  step(x: State, ux: number, uy: number, dt: number, out?: State): State {
    return this.stepBatch([x], [[ux, uy]], dt, out ? [out] : undefined)[0]!;
  }

  /** One step of every state x[r] under control u[r], with one network evaluation. */
  stepBatch(
    xs: readonly State[],
    us: readonly (readonly [number, number])[],
    dt: number,
    outs?: State[],
  ): State[] {
    const { meta } = this.file;
    if (Math.abs(dt - meta.dt) > 1e-9)
      throw new Error(`the learned coarse model steps ${meta.dt} s controls; got ${dt} s`);
    if (us.length !== xs.length) throw new Error('one control per state');
    const m = xs.length;
    if (m === 0) return [];
    const L = this.layout;
    const padded = xs.map((x) => padState(x, L));
    const input = new Float32Array(m * INPUT_SIZE);
    padded.forEach((p, r) => encodeInput(p, us[r]![0], us[r]![1], L.sliderCount, input, r * INPUT_SIZE));
    standardize(input, meta.normalization.inputMean, meta.normalization.inputStd);
    const mlp = this.network();
    const y = tf.tidy(() => forward(mlp, tf.tensor2d(input, [m, INPUT_SIZE])).dataSync());
    const output = unstandardize(
      Float64Array.from(y),
      meta.normalization.outputMean,
      meta.normalization.outputStd,
    );
    const next = paddedLayout.create();
    return padded.map((p, r) => {
      applyOutput(p, us[r]![0], us[r]![1], dt, output, r * OUTPUT_SIZE, L.sliderCount, next);
      const out = unpadState(next, L, outs?.[r] ?? L.create());
      projectFeasible(out, L, this.projection);
      return out;
    });
  }

  dispose(): void {
    if (this.mlp) disposeMlp(this.mlp);
    this.mlp = undefined;
  }

  private network(): Mlp {
    this.mlp ??= mlpFromWeights(this.file.meta.layerSizes, this.file.weights);
    return this.mlp;
  }
}
