/**
 * The fine model F(x, u, dt): MuJoCo (WebAssembly) stepping the scene's MJCF.
 *
 * Every call starts from a reset MjData with the full planar state written in, so the result
 * depends only on (x, u, dt): no warm-start, contact or actuator state carries over between calls,
 * and the same input gives bit-identical output whatever ran before on the same instance.
 * The model is compiled once per scene and its MjData reused.
 */
import loadMujoco from '@mujoco/mujoco';
import type { Scene } from '#contract/scene';
import type { Control, State, StateLayout } from '#contract/state';
import { endEffectorOf } from '#contract/end-effector/registry';
import { layoutForScene, wrapAngle } from '#contract/state';
import { restHeight, sceneToMjcf } from './mjcf';

export type MujocoModule = Awaited<ReturnType<typeof loadMujoco>>;
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

interface JointAddress {
  qpos: number;
  qvel: number;
}

/**
 * One robot DOF of the state: the joints that carry it, each holding value / joints.length (the
 * gripper's opening is split over its two fingers), and their actuators' control indices, in the
 * MJCF's actuator order. `noiseScale` turns a process-noise value (m/s) into this DOF's units.
 */
interface RobotDof {
  joints: JointAddress[];
  noiseScale: number;
}

/** Values per MuJoCo step of the execution world's process noise: the robot's DOFs, then each slider's vx, vy, omega. */
export function noiseDofs(layout: StateLayout): number {
  return layout.robotDofs + 3 * layout.sliderCount;
}

/** Fine work counted: MuJoCo steps, and the constraint solver's iterations summed over them. */
export interface FineWorkCount {
  steps: number;
  solverIterations: number;
}

/** Factors on a compiled model's physical parameters (FineModel.scalePhysics); 1 leaves one as built. */
export interface PhysicsScale {
  mass: number;
  /** On top of the mass's: a factor on the mass's distribution (the radius of gyration squared). */
  inertia: number;
  objectFriction: number;
  robotFriction: number;
  tableFriction: number;
}

export class FineModel {
  readonly layout: StateLayout;
  private readonly sliders: SliderAddress[];
  /** Id of the robot's first joint (its x slide), whose body tree is the robot. */
  private readonly robotJoint: number;
  private readonly sliderIds: string[];
  private readonly robot: RobotDof[];
  private disposed = false;
  /**
   * The fine work done since the model was made, counted (the same on any machine, under any
   * load): MuJoCo steps, and the constraint solver's iterations summed over them. A step's cost
   * grows with its solver iterations: a pusher pushing an object takes about 3.5 a step, one
   * moving freely about 1 (docs/planner.md). A worker reports it per job beside its CPU time.
   */
  readonly work: FineWorkCount = { steps: 0, solverIterations: 0 };
  /**
   * MjData's solver_niter, a view into WebAssembly memory kept between steps: fetching it (or any
   * MjData field) through the bindings every step made steps a third dearer. A memory growth
   * detaches it (length 0); it is fetched again then.
   */
  private iterations: Int32Array | undefined;

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
    const dof = (names: readonly string[], noiseScale = 1): RobotDof => ({
      joints: names.map(jointAddress),
      noiseScale,
    });
    // Each DOF's noise scale is its tool's (a turning DOF's noise is drawn in m/s like the rest);
    // a DOF over several joints (the gripper's fingers) gives each an equal share.
    const tool = endEffectorOf(scene);
    this.robot = tool.joints.map((names, j) => dof(names, tool.noiseScales[j]));
    this.robotJoint = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT.value, tool.joints[0]![0]!);
    this.sliderIds = scene.sliders.map((s) => s.id);
    this.sliders = scene.sliders.map((s) => ({
      ...jointAddress(`slider_${s.id}`),
      restZ: restHeight(s.shape),
    }));
  }

  static async create(scene: Scene): Promise<FineModel> {
    return FineModel.compile(await mujocoModule(), scene);
  }

  /** Compiles the scene's model with a loaded module (no await: reach-culled-model.ts compiles on demand). */
  static compile(mj: MujocoModule, scene: Scene): FineModel {
    const model = mj.MjModel.from_xml_string(sceneToMjcf(scene));
    const data = new mj.MjData(model);
    return new FineModel(mj, model, data, scene, scene.fine.timestep);
  }

  /** Number of MuJoCo steps that make up dt seconds. */
  stepsFor(dt: number): number {
    return stepCount(dt, this.timestep);
  }

  /** F(x, u, dt): hold the robot's velocities u for dt seconds from state x. */
  step(x: State, u: Control, dt: number, out: State = this.layout.create()): State {
    this.writeState(x, u);
    const n = this.stepsFor(dt);
    for (let k = 0; k < n; k++) this.mjStep();
    return this.readState(out);
  }

  /** Steps the current MjData without resetting it (for the execution world, which keeps its own history). */
  advance(steps: number): void {
    for (let k = 0; k < steps; k++) this.mjStep();
  }

  /**
   * Holds the robot's velocities u for dt from the current MjData (no reset), adding
   * `std * normal()` to the robot's and every slider's velocities before each MuJoCo step when
   * std > 0: the process noise of the execution world and of TAMPC's stochastic samples (WAFR
   * 2018 Eq. 9), one code path for both. `afterStep` sees the world after each step (1-based).
   * Returns the number of steps taken.
   */
  advanceNoisy(
    u: Control,
    dt: number,
    std: number,
    normal: () => number,
    afterStep?: (k: number) => void,
  ): number {
    const n = this.stepsFor(dt);
    this.setControl(u);
    for (let k = 1; k <= n; k++) {
      if (std > 0) this.perturbVelocities(() => std * normal());
      this.mjStep();
      afterStep?.(k);
    }
    return n;
  }

  /** Resets MjData and writes the planar state and the robot's command (default: at rest) into it. */
  writeState(x: State, u?: Control): void {
    this.assertLive();
    const { mj, model, data, layout } = this;
    mj.mj_resetData(model, data);
    // Views into WebAssembly memory are fetched after the reset: a memory growth detaches old views.
    const qpos = data.qpos;
    const qvel = data.qvel;
    this.robot.forEach((d, j) => {
      const share = d.joints.length;
      for (const a of d.joints) {
        qpos[a.qpos] = share === 1 ? x[j]! : x[j]! / share;
        qvel[a.qvel] = share === 1 ? x[layout.velocityOffset + j]! : x[layout.velocityOffset + j]! / share;
      }
    });
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
    this.setControl(u ?? new Array<number>(layout.robotDofs).fill(0));
  }

  /** Reads the planar state out of the current MjData. */
  readState(out: State = this.layout.create()): State {
    this.assertLive();
    const { data, layout } = this;
    const qpos = data.qpos;
    const qvel = data.qvel;
    this.robot.forEach((d, j) => {
      let q = qpos[d.joints[0]!.qpos]!;
      let v = qvel[d.joints[0]!.qvel]!;
      for (const a of d.joints.slice(1)) {
        q += qpos[a.qpos]!;
        v += qvel[a.qvel]!;
      }
      out[j] = layout.tool.angles.includes(j) ? wrapAngle(q) : q;
      out[layout.velocityOffset + j] = v;
    });
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
    for (const d of this.robot) {
      const value = noise(k++) * d.noiseScale;
      for (const a of d.joints)
        qvel[a.qvel] = qvel[a.qvel]! + (d.joints.length === 1 ? value : value / d.joints.length);
    }
    for (const a of this.sliders) {
      for (const d of [a.qvel, a.qvel + 1, a.qvel + 5]) qvel[d] = qvel[d]! + noise(k++);
    }
  }

  /**
   * The contact force on the robot in the table plane (N): the sum of the external forces on every
   * body of the robot (the pusher, or the gripper with its fingers), which touch nothing but the
   * objects. From the last step's constraint forces (mj_rnePostConstraint fills cfrc_ext); the
   * virtual UR's tool force limit is judged on it.
   */
  robotContactForce(): number {
    this.assertLive();
    const { mj, model, data } = this;
    mj.mj_rnePostConstraint(model, data);
    const root = (model.body_rootid as Int32Array)[(model.jnt_bodyid as Int32Array)[this.robotJoint]!]!;
    const rootOf = model.body_rootid as Int32Array;
    const f = data.cfrc_ext as Float64Array;
    let fx = 0;
    let fy = 0;
    for (let b = 0; b < rootOf.length; b++) {
      if (rootOf[b] !== root) continue;
      // cfrc_ext per body: torque (3), then force (3), in world axes.
      fx += f[6 * b + 3]!;
      fy += f[6 * b + 4]!;
    }
    return Math.hypot(fx, fy);
  }

  /** Commands the robot's velocities u (one per robot DOF; a DOF split over joints splits its command). */
  setControl(u: Control): void {
    if (u.length !== this.layout.robotDofs)
      throw new Error(
        `a control of the ${this.layout.robot} has ${this.layout.robotDofs} entries, got ${u.length}`,
      );
    const ctrl = this.data.ctrl;
    let c = 0;
    this.robot.forEach((d, j) => {
      const share = d.joints.length;
      for (let i = 0; i < share; i++) ctrl[c++] = share === 1 ? u[j]! : u[j]! / share;
    });
  }

  /**
   * Scales the compiled model's physical parameters in place: every slider's mass and, with it
   * and by `inertia` besides, its rotational inertia; the sliding friction of the sliders' geoms,
   * the robot's (pusher or gripper) and the table's. MuJoCo takes the larger friction of a contact
   * pair, so these are the geoms' coefficients, not the pairs'. The virtual lab's world uses it to
   * differ from the scene it was built from (virtual-lab/world-physics.ts). Resets the data.
   */
  scalePhysics(s: PhysicsScale): void {
    this.assertLive();
    const { mj, model, data } = this;
    const sliderBodies = new Set(
      this.sliderIds.map((id) => mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY.value, `slider_${id}`)),
    );
    const mass = model.body_mass as Float64Array;
    const inertia = model.body_inertia as Float64Array;
    for (const b of sliderBodies) {
      mass[b] = mass[b]! * s.mass;
      for (let k = 0; k < 3; k++) inertia[3 * b + k] = inertia[3 * b + k]! * s.mass * s.inertia;
    }
    const tableId = mj.mj_name2id(model, mj.mjtObj.mjOBJ_GEOM.value, 'table');
    const geomBody = model.geom_bodyid as Int32Array;
    const friction = model.geom_friction as Float64Array;
    for (let g = 0; g < geomBody.length; g++) {
      const body = geomBody[g]!;
      // World-body geoms other than the table are obstacles, which collide with nothing.
      const scale =
        g === tableId
          ? s.tableFriction
          : sliderBodies.has(body)
            ? s.objectFriction
            : body === 0
              ? 1
              : s.robotFriction;
      friction[3 * g] = friction[3 * g]! * scale;
    }
    // Derived constants (the bodies' inverse weights the constraint solver scales by) follow the masses.
    mj.mj_setConst(model, data);
    mj.mj_resetData(model, data);
    this.iterations = undefined;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.data.delete();
    this.model.delete();
  }

  private mjStep(): void {
    this.mj.mj_step(this.model, this.data);
    this.work.steps++;
    let iterations = this.iterations;
    if (iterations === undefined || iterations.length === 0)
      iterations = this.iterations = this.data.solver_niter as Int32Array;
    // One entry per constraint island; MuJoCo clears them all before each step's solve, so the
    // sum is this step's iterations however many islands it had.
    for (let i = 0; i < iterations.length; i++) this.work.solverIterations += iterations[i]!;
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('fine model used after dispose()');
  }
}
