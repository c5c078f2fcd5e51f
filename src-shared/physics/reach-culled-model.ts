/**
 * F(x, u, dt) with only the objects the control can move simulated (the `onlyReachable`
 * prediction setting, docs/planner.md): per control, reach.ts decides which sliders the robot can
 * set moving; the others are left out of that control's MuJoCo model and their state is copied
 * through unchanged. In clutter most objects lie out of a control's reach, and every object in a
 * model costs MuJoCo steps even asleep (its table contacts, its waking at each reset).
 *
 * One model per set of simulated sliders, compiled on first use and kept (at most 2^n for n
 * sliders); with every slider in reach it is the full model, so the result is exactly FineModel's.
 *
 * A stochastic execution (runNoisy, TAMPC's samples) is culled the same way per control and for
 * the rest: the robot's drawn kicks widen its reach (reach.ts noiseReach), a left-out object's
 * kicks are skipped in the full model's order (it keeps its state: the world's noise on an object
 * nothing touches is left out with it), and consecutive phases with the same set continue on one
 * model without a reset, as the full run does, so with every object in reach throughout the run
 * is the full model's bit for bit. A change of set carries the planar state over (as step() does).
 */
import type { Scene } from '#contract/scene';
import type { Control, State, StateLayout } from '#contract/state';
import type { JobNoise } from '#contract/worker-protocol';
import { FineModel, mujocoModule, noiseDofs, type FineWorkCount, type MujocoModule } from './fine-model';
import { noisyPhases } from './noisy-run';
import { noiseReach, reachableSliders } from './reach';

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
    out.set(this.merge(x, this.subset(sliders).step(this.project(x, sliders), u, dt), sliders));
    return out;
  }

  /** The fine work of the full model and the subset models together. */
  get work(): FineWorkCount {
    const work = { ...this.full.work };
    for (const s of this.subsets.values()) {
      work.steps += s.model.work.steps;
      work.solverIterations += s.model.work.solverIterations;
    }
    return work;
  }

  /** A stochastic execution as noisy-run.ts runNoisy, each phase with only the objects it can move. */
  runNoisy(x0: State, controls: readonly Control[], dt: number, noise: JobNoise): State[] {
    const L = this.layout;
    const stride = noiseDofs(L);
    let x = x0;
    /** The model stepping now, its sliders, and where each of its noise values sits in a full step's. */
    let current: { model: FineModel; key: string; sliders: number[]; offsets: number[] } | undefined;
    return noisyPhases(controls, dt, noise, L.robotDofs, (u, t, values, from) => {
      const steps = this.full.stepsFor(t);
      const noisy = values.length > 0;
      const kicks = noisy
        ? noiseReach(this.scene, values, from, steps, stride, this.full.timestep)
        : undefined;
      const reach = reachableSliders(this.scene, x, u, t, kicks);
      const sliders = reach.flatMap((r, i) => (r ? [i] : []));
      this.counts.asked += reach.length;
      this.counts.simulated += sliders.length;
      const key = sliders.join(',');
      if (current?.key !== key) {
        const model = sliders.length === reach.length ? this.full : this.subset(sliders);
        const robot = Array.from({ length: L.robotDofs }, (_, d) => d);
        const offsets = [...robot, ...sliders.flatMap((i) => [0, 1, 2].map((c) => L.robotDofs + 3 * i + c))];
        current = { model, key, sliders, offsets };
        model.writeState(model === this.full ? x : this.project(x, sliders));
      }
      const { model, offsets } = current;
      // The full model's values of each step, the left-out objects' skipped.
      let base = from;
      let p = 0;
      model.advanceNoisy(u, t, noisy ? 1 : 0, () => {
        const v = values[base + offsets[p]!]!;
        if (++p === offsets.length) {
          p = 0;
          base += stride;
        }
        return v;
      });
      const y = model.readState();
      x = model === this.full ? y : this.merge(x, y, sliders);
      return { next: noisy ? from + steps * stride : from, state: x };
    });
  }

  /** The state of the robot and `sliders` in their subset model's layout. */
  private project(x: State, sliders: number[]): State {
    const L = this.layout;
    const S = this.subset(sliders).layout;
    const xs = S.create();
    S.setRobot(xs, L.robotConfiguration(x), L.robotVelocity(x));
    sliders.forEach((i, j) => S.setSlider(xs, j, L.sliderPose(x, i), L.sliderVelocity(x, i)));
    return xs;
  }

  /** x with the robot and `sliders` taken from ys, their subset model's state. */
  private merge(x: State, ys: State, sliders: number[]): State {
    const L = this.layout;
    const S = this.subset(sliders).layout;
    const out = Float64Array.from(x);
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
