/**
 * Recovery after a protective stop, and only on the operator's confirmation: the controller refuses
 * to unlock within 5 s of the stop, so we wait that out; the twist is zeroed before anything can
 * move (never resume with an old command) and the control program is sent again, because a
 * protective stop halts it, but only once the arm runs again: "Protective stop releasing" says
 * the release has started, and a program sent before the robot mode is back to RUNNING is
 * refused (URCL waits for RUNNING after the unlock too). The supervisor is left disarmed: a new
 * run needs fresh checks.
 *
 * Two entry points: after a run in the same process (the run's stopped supervisor), and from
 * `parapush robot recover` in a fresh process or the console's Setup view (`robot.recover`, between
 * runs, on the console's live robot link), where the robot's own safety mode says whether there is
 * a protective stop to recover from.
 */
import { monotonicSeconds } from '../common/clock';
import { sleep as sleepFor } from '../common/timers';
import type { DashboardClient } from '../robot/dashboard';
import type { Ur5Connection } from '../robot/ur5-connection';
import type { Supervisor } from './supervisor';

export interface RecoveryPorts {
  unlockProtectiveStop(): Promise<void>;
  /** Waits up to `timeout` s for the robot mode RUNNING and the safety mode NORMAL. */
  waitForRunning(timeout: number): Promise<void>;
  zeroTwist(): void;
  resendProgram(): Promise<void>;
  /** Waits up to `timeout` s for the control program to play again. */
  waitForProgram(timeout: number): Promise<void>;
}

/** How long after a protective stop the controller refuses to unlock, s. */
export const UNLOCK_DELAY = 5;

/** How long the release after an accepted unlock may take, s. */
export const RELEASE_TIMEOUT = 10;

export interface RecoveryOptions {
  /** Wait this long after the stop before unlocking, s. */
  unlockDelay?: number;
  /** Monotonic clock, s (the supervisor's). */
  now?: () => number;
  /** Waits `seconds`. */
  sleep?: (seconds: number) => Promise<void>;
}

/** The refusal without the operator's confirmation (the console and the CLI say the same). */
export const NOT_CONFIRMED = 'recovery from a protective stop needs the operator to confirm it';

/** What recovery needs of a run's stopped supervisor (the safety thread's, through its mirror). */
export type StoppedSupervisor = Pick<Supervisor, 'state' | 'stopReason' | 'stoppedAt' | 'reset'>;

/** What recovery needs of the robot link: stops, states and the program sent again. */
export type RecoveryRobot = Pick<Ur5Connection, 'waitForState' | 'sendProgram'> & { stop(): unknown };

export async function recoverFromProtectiveStop(
  supervisor: StoppedSupervisor,
  ports: RecoveryPorts,
  confirmedByOperator: boolean,
  options: RecoveryOptions = {},
): Promise<void> {
  if (!confirmedByOperator) throw new Error(NOT_CONFIRMED);
  if (supervisor.state !== 'stopped' || supervisor.stopReason?.code !== 'protective-stop') {
    throw new Error('there is no protective stop to recover from');
  }
  await unlockAndRestart(ports, supervisor.stoppedAt, options);
  supervisor.reset();
}

/**
 * The same recovery without a run's supervisor (a fresh process): the robot's reported safety mode
 * must be PROTECTIVE_STOP. Nothing is armed afterwards; a run arms itself after its checks.
 */
export async function recoverRobotFromProtectiveStop(
  safetyMode: string | undefined,
  ports: RecoveryPorts,
  confirmedByOperator: boolean,
  options: RecoveryOptions = {},
): Promise<void> {
  if (!confirmedByOperator) throw new Error(NOT_CONFIRMED);
  if (safetyMode !== 'PROTECTIVE_STOP') {
    throw new Error(`there is no protective stop to recover from (safety mode ${safetyMode ?? 'unknown'})`);
  }
  // When the stop happened is unknown here: the controller's refusal says whether it is too early.
  await unlockAndRestart(ports, undefined, options);
}

async function unlockAndRestart(
  ports: RecoveryPorts,
  stoppedAt: number | undefined,
  options: RecoveryOptions,
): Promise<void> {
  const now = options.now ?? monotonicSeconds;
  const sleep = options.sleep ?? sleepFor;
  if (stoppedAt !== undefined) {
    const wait = stoppedAt + (options.unlockDelay ?? UNLOCK_DELAY) - now();
    if (wait > 0) await sleep(wait);
  }
  ports.zeroTwist();
  // The controller counts the 5 s from the stop on its own clock: if it still refuses, wait a
  // little and ask again, for a bounded time (longer than the 5 s when the stop time is unknown).
  const attempts = stoppedAt === undefined ? 14 : 10;
  for (let attempt = 1; ; attempt++) {
    try {
      await ports.unlockProtectiveStop();
      break;
    } catch (err) {
      if (attempt >= attempts || !/until/i.test((err as Error).message)) throw err;
      await sleep(0.5);
    }
  }
  await ports.waitForRunning(RELEASE_TIMEOUT);
  await ports.resendProgram();
  await ports.waitForProgram(5);
}

/** Recovery ports of a live robot link: dashboard unlock, RTDE stop, the program sent again. */
export function robotRecoveryPorts(robot: RecoveryRobot, dashboard: DashboardClient): RecoveryPorts {
  return {
    unlockProtectiveStop: () => dashboard.unlockProtectiveStop(),
    waitForRunning: async (timeout) =>
      void (await robot.waitForState((s) => s.robotMode === 'RUNNING' && s.safetyMode === 'NORMAL', timeout)),
    zeroTwist: () => void robot.stop(),
    resendProgram: () => robot.sendProgram(),
    waitForProgram: async (timeout) =>
      void (await robot.waitForState(
        (s) => s.safetyMode === 'NORMAL' && s.runtimeState === 'PLAYING',
        timeout,
      )),
  };
}
