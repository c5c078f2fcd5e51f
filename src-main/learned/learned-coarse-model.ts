/**
 * The learned coarse model as a Parareal coarse propagator. stepBatch() runs every state of a
 * batch through the network in one call (the coarse sweep of all rollouts of an optimizer
 * iteration at once); step() is a batch of one.
 *
 * The pusher follows the command exactly; slider poses and velocities come from the network for
 * the sliders the push can reach, and the others keep their state: the network, trained on pushes
 * that touch something, otherwise moves objects nothing touches by about 2 mm a step, which
 * Parareal then has to iterate away. The result is projected to a feasible state like the
 * analytical model's, because a regression model can leave bodies slightly inside each other.
 */
import { pusherRadius } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { layoutForScene, type Control, type State, type StateLayout } from '#contract/state';
import { footprintOf, footprintReach } from '#physics/geometry2d';
import { projectFeasible, projectionGeometry, type ProjectionGeometry } from '#physics/projection';
import { applyOutput, encodeInput, INPUT_SIZE, OUTPUT_SIZE } from './features';
import { assertSameGeometry } from './geometry';
import { loadLearnedModel, type LearnedModelFile } from './model-file';
import { disposeMlp, forward, mlpFromWeights, type Mlp } from './network';
import { standardize, unstandardize } from './normalization';
import { padState, paddedLayout, unpadState } from './slots';
import { tf } from './tf-backend';
import { learnedModelDirInUse, shippedLearnedModelDir } from '../common/paths';

/** The model shipped with Parapush (trained by `parapush learn train`, see its model card). */
export const defaultLearnedModelDir = shippedLearnedModelDir;

/** Slack on what a push can reach (m): contact starts before the footprints touch in MuJoCo. */
const REACH_MARGIN = 0.005;

/** Distance from (qx, qy) to the segment from (ax, ay) along (dx, dy). */
function segmentDistance(qx: number, qy: number, ax: number, ay: number, dx: number, dy: number): number {
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((qx - ax) * dx + (qy - ay) * dy) / len2)) : 0;
  return Math.hypot(qx - (ax + t * dx), qy - (ay + t * dy));
}

export class LearnedCoarseModel {
  readonly layout: StateLayout;
  private readonly projection: ProjectionGeometry;
  /** Radius of the circle around each slider's centre that holds its footprint (m). */
  private readonly reach: number[];
  private readonly pusherRadius: number;
  /** Built on first use: tensors need a started backend (tfBackendReady), construction does not. */
  private mlp: Mlp | undefined;

  constructor(
    scene: Scene,
    readonly file: LearnedModelFile,
  ) {
    assertSameGeometry(scene, file.meta.geometry);
    this.layout = layoutForScene(scene);
    this.projection = projectionGeometry(scene);
    this.reach = scene.sliders.map((s) => footprintReach(footprintOf(s.shape)));
    this.pusherRadius = pusherRadius(scene, 'the learned coarse model');
  }

  /**
   * Which sliders the push (x, u, dt) can move: those the pusher's swept disc can reach, and,
   * transitively, those a moved slider can reach by travelling as far as the pusher does. The
   * margin covers motion a push starts in an object touching the pusher's path at the end.
   */
  reachable(x: State, ux: number, uy: number, dt: number): boolean[] {
    const L = this.layout;
    const travel = Math.hypot(ux, uy) * dt + REACH_MARGIN;
    const [px, py] = L.pusherPosition(x);
    const moved = this.reach.map((r, i) => {
      const p = L.sliderPose(x, i);
      const v = L.sliderVelocity(x, i);
      const moving = Math.hypot(v.vx, v.vy) > 1e-3 || Math.abs(v.omega) > 1e-2;
      return (
        moving || segmentDistance(p.x, p.y, px, py, ux * dt, uy * dt) <= r + this.pusherRadius + REACH_MARGIN
      );
    });
    for (let changed = true; changed;) {
      changed = false;
      for (let i = 0; i < moved.length; i++) {
        if (moved[i]) continue;
        const p = L.sliderPose(x, i);
        moved[i] = moved.some((m, j) => {
          if (!m) return false;
          const q = L.sliderPose(x, j);
          return Math.hypot(p.x - q.x, p.y - q.y) <= this.reach[i]! + this.reach[j]! + travel;
        });
        changed ||= moved[i]!;
      }
    }
    return moved;
  }

  /** Loads `dir`, else $PARAPUSH_LEARNED_MODEL (a model directory of your own), else the shipped model. */
  static load(scene: Scene, dir?: string): LearnedCoarseModel {
    return new LearnedCoarseModel(scene, loadLearnedModel(dir ?? learnedModelDirInUse()));
  }

  step(x: State, ux: number, uy: number, dt: number, out?: State): State {
    return this.stepBatch([x], [[ux, uy]], dt, out ? [out] : undefined)[0]!;
  }

  /** One step of every state x[r] under control u[r], with one network evaluation. */
  stepBatch(xs: readonly State[], us: readonly Control[], dt: number, outs?: State[]): State[] {
    const { meta } = this.file;
    if (Math.abs(dt - meta.dt) > 1e-9)
      throw new Error(`the learned coarse model steps ${meta.dt} s controls; got ${dt} s`);
    if (us.length !== xs.length) throw new Error('one control per state');
    const m = xs.length;
    if (m === 0) return [];
    const L = this.layout;
    const padded = xs.map((x) => padState(x, L));
    const input = new Float32Array(m * INPUT_SIZE);
    padded.forEach((p, r) => encodeInput(p, us[r]![0]!, us[r]![1]!, L.sliderCount, input, r * INPUT_SIZE));
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
      const ux = us[r]![0]!;
      const uy = us[r]![1]!;
      applyOutput(p, ux, uy, dt, output, r * OUTPUT_SIZE, L.sliderCount, next);
      const out = unpadState(next, L, outs?.[r] ?? L.create());
      this.reachable(xs[r]!, ux, uy, dt).forEach((moved, i) => {
        if (!moved) L.setSlider(out, i, L.sliderPose(xs[r]!, i), L.sliderVelocity(xs[r]!, i));
      });
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
