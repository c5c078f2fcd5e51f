/**
 * The real robot as the MPC loop's Plant: observe() reads the table state from the state estimator
 * (mocap/state-estimator.ts), execute() hands the control to the safety supervisor, which streams
 * it for its duration and then holds still (in the safety thread: a stall of this thread cannot
 * stall the command stream). The supervisor decides; this only proposes. A gripper's control
 * (vx, vy, yaw rate, opening speed) is proposed the same way: the motion streamed, the fingers'
 * motion once per control; the plant holds no handle on the gripper itself.
 */
import type { State } from '#contract/state';
import { type Control } from '#contract/state';
import { monotonicSeconds } from '../common/clock';
import type { TableEstimate } from '../mocap/state-estimator';
import type { Plant } from '../planning/plant';
import type { Supervisor } from '../safety/supervisor';
import { describeStop } from '../safety/stop-reasons';

export class RunStoppedError extends Error {
  override name = 'RunStoppedError';
}

/** What the plant asks of the run's supervisor (the safety thread's: supervisor-mirror.ts). */
export interface PlantSupervisor extends Pick<Supervisor, 'commandFingers' | 'state' | 'stopReason'> {
  /**
   * Proposes one control for `duration` s, sent every `period` s by the supervisor itself and
   * then held; resolves false when refused or stopped.
   */
  stream(vx: number, vy: number, yawRate: number, duration: number, period: number): Promise<boolean>;
}

export interface RobotPlantOptions {
  supervisor: PlantSupervisor;
  /** The table now, from the run's state estimator (the live view shows the same). */
  estimate: () => TableEstimate;
  /** Awaited after each action, the arm holding still (the operator's pause). */
  betweenActions?: () => Promise<void>;
  /** Interval between command refreshes while moving, s; well inside the watchdogs. */
  commandPeriod?: number;
  /**
   * Whether the arm stands still, as the robot measures its tool; after each control the plant
   * observes the table only once it has for SETTLE_TIME (absent: at once).
   */
  armAtRest?: () => boolean;
}

/**
 * How long the arm must have stood still before the table is observed after a control (s): the
 * objects it pushed slide on for a moment (a 0.1 m/s slide stops in 13 ms on the 0.8-friction
 * table) and motion capture shows them a frame later (8 ms at 120 Hz). Observed at once, while
 * the hold still decelerated the arm, the table moved on under the next plan, and 21% of the steps
 * of 8 console dry runs were planned twice (median 4.7 mm between the two observations).
 */
export const SETTLE_TIME = 0.03;
/** Longest wait for the arm to stand still after a control (s); a 0.5 m/s stop takes 0.33 s. */
const MAX_SETTLE = 0.5;

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
    const path: State[] = [];
    if (u.length === 4 && !sup.commandFingers(u[3]!, dt)) throw this.stopped();
    // The supervisor streams the control where nothing here can delay it; this side watches the table.
    let ended: boolean | undefined;
    void sup.stream(u[0]!, u[1]!, u[2] ?? 0, dt, period).then((ok) => (ended = ok));
    while (ended === undefined) {
      await sleep(period);
      // A frame missing for a moment is the supervisor's business (staleness), not the path's.
      const seen = this.tryObserve();
      if (seen) path.push(seen);
    }
    if (!ended) throw this.stopped();
    await this.settle(period, path);
    await this.o.betweenActions?.();
    if (sup.state !== 'running') throw this.stopped();
    path.push(this.observe());
    return path;
  }

  /**
   * Waits until the arm has stood still for SETTLE_TIME, at most MAX_SETTLE; what the table does
   * meanwhile joins the path (an object sliding on may still touch an obstacle).
   */
  private async settle(period: number, path: State[]): Promise<void> {
    const atRest = this.o.armAtRest;
    if (!atRest) return;
    const start = monotonicSeconds();
    let restSince: number | null = null;
    for (;;) {
      const now = monotonicSeconds();
      restSince = atRest() ? (restSince ?? now) : null;
      if ((restSince !== null && now - restSince >= SETTLE_TIME) || now - start >= MAX_SETTLE) return;
      await sleep(period);
      const seen = this.tryObserve();
      if (seen) path.push(seen);
    }
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
