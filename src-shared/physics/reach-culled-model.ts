/**
 * F(x, u, dt) with only the objects the control can move simulated (the `onlyReachable`
 * prediction setting, docs/planner.md): per control, reach.ts decides which sliders the robot can
 * set moving; the others are left out of that control's MuJoCo model and their state is copied
 * through unchanged. In clutter most objects lie out of a control's reach, and every object in a
 * model costs MuJoCo steps even asleep (its table contacts, its waking at each reset).
 *
 * One model per set of simulated sliders, compiled on first use and kept (at most 2^n for n
 * sliders); with every slider in reach it is the full model, so the result is exactly FineModel's.
 */
import type { Scene } from '#contract/scene';
import type { Control, State, StateLayout } from '#contract/state';
import { FineModel, mujocoModule, type MujocoModule } from './fine-model';
import { reachableSliders } from './reach';

export class ReachCulledModel {
  readonly layout: StateLayout;
  /** Sliders simulated and slider-controls asked, since creation (what the culling saved). */
  readonly counts = { simulated: 0, asked: 0 };
  private readonly subsets = new Map<string, { model: FineModel; sliders: number[] }>();

  private constructor(
    private readonly mj: MujocoModule,
    private readonly scene: Scene,
    private readonly full: FineModel,
  ) {
    this.layout = full.layout;
  }

  /** Wraps the scene's full model (which the caller keeps for everything but step()). */
  static async create(scene: Scene, full: FineModel): Promise<ReachCulledModel> {
    return new ReachCulledModel(await mujocoModule(), scene, full);
  }

  /** F(x, u, dt) as FineModel.step, the sliders out of the control's reach passed through. */
  step(x: State, u: Control, dt: number, out: State = this.layout.create()): State {
    const reach = reachableSliders(this.scene, x, u, dt);
    const n = reach.length;
    const sliders = reach.flatMap((r, i) => (r ? [i] : []));
    this.counts.asked += n;
    this.counts.simulated += sliders.length;
    if (sliders.length === n) return this.full.step(x, u, dt, out);
    const sub = this.subset(sliders);
    const L = this.layout;
    const S = sub.layout;
    const xs = S.create();
    S.setRobot(xs, L.robotConfiguration(x), L.robotVelocity(x));
    sliders.forEach((i, j) => S.setSlider(xs, j, L.sliderPose(x, i), L.sliderVelocity(x, i)));
    const ys = sub.step(xs, u, dt);
    out.set(x);
    L.setRobot(out, S.robotConfiguration(ys), S.robotVelocity(ys));
    sliders.forEach((i, j) => L.setSlider(out, i, S.sliderPose(ys, j), S.sliderVelocity(ys, j)));
    return out;
  }

  private subset(sliders: number[]): FineModel {
    const key = sliders.join(',');
    let s = this.subsets.get(key);
    if (!s) {
      const scene: Scene = { ...this.scene, sliders: sliders.map((i) => this.scene.sliders[i]!) };
      s = { model: FineModel.compile(this.mj, scene), sliders };
      this.subsets.set(key, s);
    }
    return s.model;
  }

  /** Frees the subset models (not the full one, which the caller owns). */
  dispose(): void {
    for (const s of this.subsets.values()) s.model.dispose();
    this.subsets.clear();
  }
}
