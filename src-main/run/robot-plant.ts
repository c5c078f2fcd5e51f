/**
 * The real robot as the MPC loop's Plant: observe() reads the table state from the state estimator
 * (mocap/state-estimator.ts), execute() streams the control through the safety supervisor for its
 * duration and then holds still. The supervisor decides; this only proposes. A gripper's control
 * (vx, vy, yaw rate, opening speed) is proposed the same way: the motion streamed, the fingers'
 * motion once per control; the plant holds no handle on the gripper itself.
 */
import type { State } from '../contract/state';
import { monotonicSeconds } from '../contract/time';
import type { TableEstimate } from '../mocap/state-estimator';
import type { Control } from '../parareal/parareal';
import type { Plant } from '../planning/plant';
import type { Supervisor } from '../safety/supervisor';
import { describeStop } from '../safety/stop-reasons';

export class RunStoppedError extends Error {
  override name = 'RunStoppedError';
}

export interface RobotPlantOptions {
  supervisor: Supervisor;
  /** The table now, from the run's state estimator (the live view shows the same). */
  estimate: () => TableEstimate;
  /** Awaited after each action, the arm holding still (the operator's pause). */
  betweenActions?: () => Promise<void>;
  /** Interval between command refreshes while moving, s; well inside the watchdogs. */
  commandPeriod?: number;
}

export class RobotPlant implements Plant {
  constructor(private readonly o: RobotPlantOptions) {}

  /** The measured state (velocities zero); a position nobody knows stops the run. */
  observe(): State {
    const e = this.o.estimate();
    if (e.state === null) throw new RunStoppedError(e.missing);
    return e.state;
  }

  async execute(u: Control, dt: number): Promise<State[]> {
    if (u.length !== 2 && u.length !== 4)
      throw new Error(`a control has 2 entries (pusher) or 4 (gripper), got ${u.length}`);
    const sup = this.o.supervisor;
    const period = this.o.commandPeriod ?? 0.008;
    const end = monotonicSeconds() + dt;
    const path: State[] = [];
    if (u.length === 4 && !sup.commandFingers(u[3]!, dt)) throw this.stopped();
    while (monotonicSeconds() < end) {
      if (!sup.command(u[0]!, u[1]!, u[2] ?? 0)) throw this.stopped();
      await sleep(Math.min(period, Math.max(0, end - monotonicSeconds())));
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

const sleep = (seconds: number): Promise<void> => new Promise((r) => setTimeout(r, seconds * 1000));
