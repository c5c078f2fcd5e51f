/**
 * The fine model F(x, u, dt): MuJoCo (WebAssembly) stepping the scene's MJCF.
 *
 * Every call starts from a reset MjData with the full planar state written in, so the result
 * depends only on (x, u, dt): no warm-start, contact or actuator state carries over between calls,
 * and the same input gives bit-identical output whatever ran before on the same instance.
 * The model is compiled once per scene and its MjData reused.
 */
import loadMujoco from '@mujoco/mujoco';
import type { Scene } from '../../src-main/contract/scene';
import type { State, StateLayout } from '../../src-main/contract/state';
import { layoutForScene, wrapAngle } from '../../src-main/contract/state';
import { restHeight, sceneToMjcf } from './mjcf';

type MujocoModule = Awaited<ReturnType<typeof loadMujoco>>;
type MjModel = InstanceType<MujocoModule['MjModel']>;
type MjData = InstanceType<MujocoModule['MjData']>;

let modulePromise: Promise<MujocoModule> | undefined;

/** The WebAssembly module is loaded once per process and shared by all fine models. */
export function mujocoModule(): Promise<MujocoModule> {
  modulePromise ??= loadMujoco();
  return modulePromise;
}

/** Number of MuJoCo steps of `timestep` that make up dt seconds (an error unless a whole number). */
export function stepCount(dt: number, timestep: number): number {
  const n = Math.round(dt / timestep);
  if (n < 1 || Math.abs(n * timestep - dt) > 1e-9) {
    throw new Error(`control duration ${dt} s is not a whole number of ${timestep} s time steps`);
  }
  return n;
}

interface SliderAddress {
  qpos: number;
  qvel: number;
  restZ: number;
}

export class FineModel {
  readonly layout: StateLayout;
  private readonly sliders: SliderAddress[];
  private readonly pusherQpos: [number, number];
  private readonly pusherQvel: [number, number];
  private disposed = false;

  private constructor(
    private readonly mj: MujocoModule,
    private readonly model: MjModel,
    private readonly data: MjData,
    scene: Scene,
    readonly timestep: number,
  ) {
    this.layout = layoutForScene(scene);
    const jointAddress = (name: string): { qpos: number; qvel: number } => {
      const id = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT.value, name);
      if (id < 0) throw new Error(`MJCF has no joint "${name}"`);
      return { qpos: model.jnt_qposadr[id]!, qvel: model.jnt_dofadr[id]! };
    };
    const px = jointAddress('pusher_x');
    const py = jointAddress('pusher_y');
    this.pusherQpos = [px.qpos, py.qpos];
    this.pusherQvel = [px.qvel, py.qvel];
    this.sliders = scene.sliders.map((s) => ({
      ...jointAddress(`slider_${s.id}`),
      restZ: restHeight(s.shape),
    }));
  }

  static async create(scene: Scene): Promise<FineModel> {
    const mj = await mujocoModule();
    const model = mj.MjModel.from_xml_string(sceneToMjcf(scene));
    const data = new mj.MjData(model);
    return new FineModel(mj, model, data, scene, scene.fine.timestep);
  }

  /** Number of MuJoCo steps that make up dt seconds. */
  stepsFor(dt: number): number {
    return stepCount(dt, this.timestep);
  }

  /** F(x, u, dt): hold pusher velocity (ux, uy) for dt seconds from state x. */
  step(x: State, ux: number, uy: number, dt: number, out: State = this.layout.create()): State {
    this.writeState(x, ux, uy);
    const n = this.stepsFor(dt);
    for (let k = 0; k < n; k++) this.mj.mj_step(this.model, this.data);
    return this.readState(out);
  }

  /** Steps the current MjData without resetting it (for the execution world, which keeps its own history). */
  advance(steps: number): void {
    for (let k = 0; k < steps; k++) this.mj.mj_step(this.model, this.data);
  }

  /**
   * Holds pusher velocity (ux, uy) for dt from the current MjData (no reset), adding
   * `std * normal()` to the pusher's and every slider's velocities before each MuJoCo step when
   * std > 0: the process noise of the execution world and of TAMPC's stochastic samples (WAFR
   * 2018 Eq. 9), one code path for both. `afterStep` sees the world after each step (1-based).
   * Returns the number of steps taken.
   */
  advanceNoisy(
    ux: number,
    uy: number,
    dt: number,
    std: number,
    normal: () => number,
    afterStep?: (k: number) => void,
  ): number {
    const n = this.stepsFor(dt);
    this.setControl(ux, uy);
    for (let k = 1; k <= n; k++) {
      if (std > 0) this.perturbVelocities(() => std * normal());
      this.mj.mj_step(this.model, this.data);
      afterStep?.(k);
    }
    return n;
  }

  /** Resets MjData and writes the planar state and the pusher command into it. */
  writeState(x: State, ux: number, uy: number): void {
    this.assertLive();
    const { mj, model, data, layout } = this;
    mj.mj_resetData(model, data);
    // Views into WebAssembly memory are fetched after the reset: a memory growth detaches old views.
    const qpos = data.qpos;
    const qvel = data.qvel;
    const ctrl = data.ctrl;
    const [pvx, pvy] = layout.pusherVelocity(x);
    qpos[this.pusherQpos[0]] = x[0]!;
    qpos[this.pusherQpos[1]] = x[1]!;
    qvel[this.pusherQvel[0]] = pvx;
    qvel[this.pusherQvel[1]] = pvy;
    this.sliders.forEach((a, i) => {
      const p = layout.sliderPose(x, i);
      const v = layout.sliderVelocity(x, i);
      qpos[a.qpos] = p.x;
      qpos[a.qpos + 1] = p.y;
      qpos[a.qpos + 2] = a.restZ;
      qpos[a.qpos + 3] = Math.cos(p.theta / 2);
      qpos[a.qpos + 4] = 0;
      qpos[a.qpos + 5] = 0;
      qpos[a.qpos + 6] = Math.sin(p.theta / 2);
      // Free joint velocity: linear in the world frame, angular in the body frame (upright body:
      // body z = world z).
      qvel[a.qvel] = v.vx;
      qvel[a.qvel + 1] = v.vy;
      qvel[a.qvel + 5] = v.omega;
    });
    ctrl[0] = ux;
    ctrl[1] = uy;
  }

  /** Reads the planar state out of the current MjData. */
  readState(out: State = this.layout.create()): State {
    this.assertLive();
    const { data, layout } = this;
    const qpos = data.qpos;
    const qvel = data.qvel;
    layout.setPusher(
      out,
      qpos[this.pusherQpos[0]]!,
      qpos[this.pusherQpos[1]]!,
      qvel[this.pusherQvel[0]]!,
      qvel[this.pusherQvel[1]]!,
    );
    this.sliders.forEach((a, i) => {
      const w = qpos[a.qpos + 3]!;
      const qx = qpos[a.qpos + 4]!;
      const qy = qpos[a.qpos + 5]!;
      const qz = qpos[a.qpos + 6]!;
      const theta = wrapAngle(Math.atan2(2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz)));
      layout.setSlider(
        out,
        i,
        { x: qpos[a.qpos]!, y: qpos[a.qpos + 1]!, theta },
        { vx: qvel[a.qvel]!, vy: qvel[a.qvel + 1]!, omega: qvel[a.qvel + 5]! },
      );
    });
    return out;
  }

  /** Adds to the current velocities in place (the execution world's process noise). */
  perturbVelocities(noise: (dofIndex: number) => number): void {
    const qvel = this.data.qvel;
    let k = 0;
    for (const d of this.pusherQvel) qvel[d] = qvel[d]! + noise(k++);
    for (const a of this.sliders) {
      for (const d of [a.qvel, a.qvel + 1, a.qvel + 5]) qvel[d] = qvel[d]! + noise(k++);
    }
  }

  setControl(ux: number, uy: number): void {
    const ctrl = this.data.ctrl;
    ctrl[0] = ux;
    ctrl[1] = uy;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.data.delete();
    this.model.delete();
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('fine model used after dispose()');
  }
}
