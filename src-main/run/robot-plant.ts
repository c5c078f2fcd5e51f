/**
 * The real robot as the MPC loop's Plant: observe() reads the table state from motion capture,
 * execute() streams the control through the safety supervisor for its duration and then holds
 * still. The supervisor decides; this only proposes.
 */
import { performance } from 'node:perf_hooks';
import type { State, StateLayout } from '../contract/state';
import type { PlanarPoses } from '../mocap/scene-binding';
import type { Control } from '../parareal/parareal';
import type { Plant } from '../planning/plant';
import type { Supervisor } from '../safety/supervisor';
import { describeStop } from '../safety/stop-reasons';

export class RunStoppedError extends Error {
  override name = 'RunStoppedError';
}

export interface RobotPlantOptions {
  supervisor: Supervisor;
  layout: StateLayout;
  poses: () => PlanarPoses | undefined;
  /** Pusher position from the robot, for setups whose pusher carries no markers. */
  pusherFromRobot: () => { x: number; y: number } | undefined;
  /** Awaited after each action, the arm holding still (the operator's pause). */
  betweenActions?: () => Promise<void>;
  /** Interval between command refreshes while moving (ms); well inside the watchdogs. */
  commandPeriodMs?: number;
}

export class RobotPlant implements Plant {
  constructor(private readonly o: RobotPlantOptions) {}

  /**
   * The measured state. Velocities are zero: the arm holds still while the planner plans, and the
   * objects come to rest under friction within a fraction of a second.
   */
  observe(): State {
    const poses = this.o.poses();
    if (!poses) throw new RunStoppedError('no motion-capture frame to observe the table from');
    const L = this.o.layout;
    const x = L.create();
    const pusher = poses.pusher.pose ?? this.o.pusherFromRobot();
    if (!pusher)
      throw new RunStoppedError(
        'the pusher position is known neither from motion capture nor from the robot',
      );
    L.setPusher(x, pusher.x, pusher.y);
    poses.sliders.forEach((s, i) => {
      if (!s.pose) throw new RunStoppedError(`no pose for ${s.id} (${s.rigidBody ?? 'no rigid body bound'})`);
      L.setSlider(x, i, s.pose);
    });
    return x;
  }

  async execute(u: Control, dt: number): Promise<State[]> {
    const sup = this.o.supervisor;
    const period = this.o.commandPeriodMs ?? 8;
    const end = performance.now() + dt * 1000;
    const path: State[] = [];
    while (performance.now() < end) {
      if (!sup.command(u[0], u[1])) throw this.stopped();
      await sleep(Math.min(period, Math.max(0, end - performance.now())));
      // A frame missing for a moment is the supervisor's business (staleness), not the path's.
      const seen = this.tryObserve();
      if (seen) path.push(seen);
    }
    sup.hold();
    await this.o.betweenActions?.();
    if (sup.state !== 'running') throw this.stopped();
    path.push(this.observe());
    return path;
  }

  private tryObserve(): State | undefined {
    try {
      return this.observe();
    } catch (e) {
      if (e instanceof RunStoppedError) return undefined;
      throw e;
    }
  }

  private stopped(): RunStoppedError {
    const r = this.o.supervisor.stopReason;
    return new RunStoppedError(r ? describeStop(r) : `supervisor is ${this.o.supervisor.state}`);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
