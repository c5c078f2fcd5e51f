/**
 * The virtual lab's physical world: MuJoCo stepped in real time, in which the pusher follows the
 * virtual arm's tool and the sliders are pushed by it. The arm (virtual UR) and the cameras
 * (virtual NatNet server) see this world the way the real ones see the table.
 *
 * The pusher is driven by the tool's velocity plus a small correction of the position error, so
 * it tracks the tool without drifting; process noise (Gaussian, on every body's velocity at every
 * step, as in the papers' execution worlds) makes the world less predictable than the planner's.
 */
import { performance } from 'node:perf_hooks';
import { requirePusher, type Pusher, type Scene } from '../contract/scene';
import { initialState, layoutForScene, type State, type StateLayout } from '../contract/state';
import { FineModel } from '../../src-workers/physics/fine-model';
import { PUSHER_CLEARANCE } from '../../src-workers/physics/mjcf';
import type { RobotAdapter } from '../robot/adapter';
import { Rng } from '../common/rng';
import type { TablePose } from './natnet-server';
import { sceneRigidBodies } from './natnet-server';

export interface ToolMotion {
  pose: readonly number[];
  velocity: readonly number[];
}

export interface LabWorldOptions {
  /** Variance of the velocity noise added at every MuJoCo step ((m/s)^2); 0 for none. */
  noiseVariance: number;
  seed: number;
  /** Gain of the pusher's position correction towards the tool (1/s). */
  trackingGain?: number;
  /** Wall-clock interval of the stepping timer (ms). */
  tickMs?: number;
}

export class LabWorld {
  readonly layout: StateLayout;
  private readonly names: string[];
  private readonly rng: Rng;
  private readonly noiseStd: number;
  private readonly trackingGain: number;
  private readonly pusher: Pusher;
  private tool: ToolMotion | undefined;
  private state: State;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private stepsDone = 0;
  /** Real-time steps dropped because the timer fell behind (diagnostics). */
  skippedSteps = 0;

  private constructor(
    private readonly scene: Scene,
    private readonly fine: FineModel,
    private readonly adapter: RobotAdapter,
    private readonly options: LabWorldOptions,
  ) {
    this.pusher = requirePusher(scene, 'the virtual lab');
    this.layout = layoutForScene(scene);
    this.names = sceneRigidBodies(scene).map((b) => b.name);
    this.rng = new Rng(options.seed);
    this.noiseStd = Math.sqrt(options.noiseVariance);
    this.trackingGain = options.trackingGain ?? 20;
    this.state = initialState(scene);
    fine.writeState(this.state);
  }

  static async create(scene: Scene, adapter: RobotAdapter, options: LabWorldOptions): Promise<LabWorld> {
    return new LabWorld(scene, await FineModel.create(scene), adapter, options);
  }

  /** The arm reports its tool motion every control cycle. */
  setTool(motion: ToolMotion): void {
    this.tool = motion;
  }

  /** Current poses by rigid-body name, for the virtual motion-capture server. */
  poses(): Map<string, TablePose> {
    const L = this.layout;
    const m = new Map<string, TablePose>();
    const [px, py] = L.pusherPosition(this.state);
    m.set(this.names[0]!, { x: px, y: py, theta: 0, z: this.pusher.height / 2 + PUSHER_CLEARANCE });
    this.scene.sliders.forEach((s, i) =>
      m.set(this.names[i + 1]!, { ...L.sliderPose(this.state, i), z: s.shape.height / 2 }),
    );
    return m;
  }

  /**
   * Puts the pusher and every slider back at rest on their start poses from the scene, as an
   * operator resets the table between runs. The tool must be there too (see VirtualLab.placeObjects),
   * or the pusher's tracking pulls it straight back.
   */
  placeScene(): void {
    this.state = initialState(this.scene);
    this.fine.writeState(this.state);
  }

  snapshot(): State {
    return this.state.slice();
  }

  start(): void {
    this.startedAt = performance.now();
    this.stepsDone = 0;
    const tick = (): void => this.catchUp();
    this.timer = setInterval(tick, this.options.tickMs ?? 4);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.stop();
    this.fine.dispose();
  }

  /** Steps the world up to the current wall-clock time. */
  private catchUp(): void {
    const dt = this.fine.timestep;
    const due = Math.floor((performance.now() - this.startedAt) / 1000 / dt) - this.stepsDone;
    // After a long stall (a debugger, a loaded machine) jump ahead rather than burst.
    const maxBurst = Math.ceil(0.05 / dt);
    const steps = Math.min(due, maxBurst);
    if (due > maxBurst) this.skippedSteps += due - maxBurst;
    this.stepsDone += due;
    for (let k = 0; k < steps; k++) {
      this.drivePusher();
      if (this.noiseStd > 0) this.fine.perturbVelocities(() => this.noiseStd * this.rng.normal());
      this.fine.advance(1);
    }
    if (steps > 0) this.state = this.fine.readState();
  }

  private drivePusher(): void {
    if (!this.tool) return;
    const target = this.adapter.pusherPosition(this.tool.pose);
    const v = this.adapter.pusherVelocity([...this.tool.velocity, 0, 0, 0], this.tool.pose);
    const [px, py] = this.layout.pusherPosition(this.fine.readState(this.state));
    this.fine.setControl([v.vx + this.trackingGain * (target.x - px), v.vy + this.trackingGain * (target.y - py)]);
  }
}
