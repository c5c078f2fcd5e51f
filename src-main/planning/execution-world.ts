/**
 * The simulated execution world (ISRR 2019 Sec. IV-B1, WAFR 2018 Sec. 7): MuJoCo that keeps its
 * own history from step to step (no reset between controls, unlike the fine model's F(x, u, dt)),
 * with Gaussian noise added to the robot's and every slider's velocities at every MuJoCo step:
 * - constant: N(0, variance) (ISRR: 1e-4);
 * - action-proportional: beta(u) = b * |u| (WAFR Eq. 9-10), so fast pushes spread more. For the
 *   gripper |u| combines its four inputs as speeds of its points (control-space.ts
 *   controlMagnitude), and its yaw rate takes the noise divided by its reach (fine-model.ts).
 *   The task's `reading` says what beta is: the per-step standard deviation (`std`), the variance
 *   of each step's kick (`variance-per-step`, the papers' words: docs/noise.md), or a variance per
 *   second of simulated time (`variance-per-second`: per-step variance b * |u| * timestep).
 * The noise comes from the world's own seeded stream: the same seed and controls give the same
 * run, whatever the planner draws from its own stream.
 */
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { type Control } from '#contract/state';
import type { State } from '#contract/state';
import { FineModel } from '#physics/fine-model';
import { controlMagnitude } from './control-space';
import type { Plant } from './plant';
import type { NoiseModel } from './task-file';
import { Rng } from '../common/rng';

/**
 * The process noise's standard deviation per MuJoCo step of `timestep` for control u;
 * `speedScales`: its tool's (controlMagnitude).
 */
export function noiseStd(
  noise: NoiseModel,
  u: Control,
  timestep: number,
  speedScales?: readonly number[],
): number {
  if (noise.kind === 'constant') return Math.sqrt(noise.variance);
  const beta = noise.slope * controlMagnitude(u, speedScales);
  if (noise.reading === 'variance-per-second') return Math.sqrt(beta * timestep);
  return noise.reading === 'variance-per-step' ? Math.sqrt(beta) : beta;
}

/**
 * The velocity perturbations the world adds over `steps` MuJoCo steps of standard deviation std,
 * in its order (per step: pusher x, y, then each slider's vx, vy, omega; `dofs` per step), drawn
 * from rng as apply() draws them; empty when std is 0 (apply() then draws nothing). A noisy fine
 * job (TAMPC's samples on the worker pool) adds them in the same order.
 */
export function processNoise(rng: Rng, std: number, steps: number, dofs: number): Float64Array {
  if (!(std > 0)) return new Float64Array(0);
  const out = new Float64Array(steps * dofs);
  for (let i = 0; i < out.length; i++) out[i] = std * rng.normal();
  return out;
}

/**
 * MuJoCo steps between the path samples execute() returns: 10 ms, 1 mm at 0.1 m/s and 5 mm at the
 * scene bound of 0.5 m/s (a WAFR fast push).
 */
const PATH_SAMPLE_STEPS = 10;

export class ExecutionWorld implements Plant {
  private rng: Rng;
  private steps = 0;

  private constructor(
    private readonly model: FineModel,
    private readonly noise: NoiseModel,
    seed: number,
    private readonly speedScales: readonly number[],
  ) {
    this.rng = new Rng(seed);
  }

  static async create(scene: Scene, noise: NoiseModel, seed: number, x0: State): Promise<ExecutionWorld> {
    const world = new ExecutionWorld(
      await FineModel.create(scene),
      noise,
      seed,
      endEffectorOf(scene).speedScales,
    );
    world.reset(x0, seed);
    return world;
  }

  /** Starts over from x0 (at rest apart from x0's velocities) with a fresh noise stream. */
  reset(x0: State, seed: number): void {
    this.model.writeState(x0);
    this.rng = new Rng(seed);
    this.steps = 0;
  }

  /** MuJoCo steps taken since the last reset. */
  get stepCount(): number {
    return this.steps;
  }

  observe(): State {
    return this.model.readState();
  }

  execute(u: Control, dt: number): Promise<State[]> {
    const path: State[] = [];
    this.apply(u, dt, (k) => {
      if (k % PATH_SAMPLE_STEPS === 0) path.push(this.model.readState());
    });
    path.push(this.model.readState());
    return Promise.resolve(path);
  }

  /**
   * Synchronous core of execute(), also used for the planner's stochastic samples; `afterStep`
   * sees the world after each MuJoCo step (1-based step count).
   */
  apply(u: Control, dt: number, afterStep?: (k: number) => void): void {
    const std = noiseStd(this.noise, u, this.model.timestep, this.speedScales);
    this.steps += this.model.advanceNoisy(u, dt, std, () => this.rng.normal(), afterStep);
  }

  dispose(): void {
    this.model.dispose();
  }
}
