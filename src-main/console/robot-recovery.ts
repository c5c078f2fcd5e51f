/**
 * Recovery from a protective stop from the console (the Setup view's "Recover from protective
 * stop"): the recovery `parapush robot recover` does (safety/recovery.ts: unlock once the
 * controller allows it, twist zeroed, control program sent again), on the robot the console is
 * connected to, real or virtual alike. Only on the operator's confirmation, only between runs,
 * only when the robot itself reports a protective stop, and one at a time. Nothing is armed
 * afterwards: the next run arms after its own pre-flight checks.
 */
import type { CommandResult } from '#contract/console-api';
import { monotonicSeconds } from '../common/clock';
import {
  NOT_CONFIRMED,
  recoverRobotFromProtectiveStop,
  robotRecoveryPorts,
  type RecoveryOptions,
} from '../safety/recovery';
import type { LabConnection } from '../lab-link/lab-connection';

export interface RobotRecoveryOptions {
  /** The lab the console is connected to (the run controller's current session). */
  session: () => LabConnection | null;
  /** Whether a run still owns the lab (an aborted run winding down included). */
  runInProgress?: () => boolean;
  /** Unlock delay, clock and sleep of the recovery (tests). */
  recovery?: RecoveryOptions;
}

export type RobotRecoveryResult = CommandResult<'robot.recover'>;

/**
 * The lab whose robot a recovery is for: the one whose robot reports a protective stop, the real
 * lab's first (after a dry run the last run's lab is the virtual one, but the robot an operator
 * recovers is the real arm that stopped); with none stopped, the first lab there is (the recovery
 * then says there is no stop to recover from). `labs` in order of preference.
 */
export function recoveryTarget(labs: readonly (LabConnection | null)[]): LabConnection | null {
  const present = labs.filter((l): l is LabConnection => l !== null);
  const stopped = present.find((l) => l.current()?.robot.latest?.safetyMode === 'PROTECTIVE_STOP');
  return stopped ?? present[0] ?? null;
}

/** How long to wait for a robot state newer than the request before giving up, s. */
const FRESH_STATE = 1;

export class RobotRecovery {
  private running = false;

  constructor(private readonly o: RobotRecoveryOptions) {}

  /** A recovery is under way (runs must not start meanwhile). */
  get inProgress(): boolean {
    return this.running;
  }

  async recover(confirm: boolean): Promise<RobotRecoveryResult> {
    if (!confirm) throw new Error(`${NOT_CONFIRMED}: check that the workspace is clear, then confirm`);
    if (this.o.runInProgress?.())
      throw new Error('the robot cannot be recovered while a run is in progress: abort it and let it end');
    if (this.running) throw new Error('a recovery from the protective stop is already under way');
    const session = this.o.session();
    const link = session?.current() ?? null;
    if (!session || !link)
      throw new Error(
        `not connected to ${session ? `the ${session.description}` : 'a lab'}: there is no robot to recover`,
      );
    this.running = true;
    try {
      const { robot, dashboard } = link;
      if (!robot.linkUp) throw new Error('the robot link is down: there is no robot to recover');
      // Judge the safety mode on a state that arrived after the request, never on an old one.
      const asked = monotonicSeconds();
      const state = await robot
        .waitForState((s) => s.receivedAt >= asked, FRESH_STATE)
        .catch(() => {
          throw new Error(`no robot state within ${FRESH_STATE} s: cannot tell whether it is stopped`);
        });
      await recoverRobotFromProtectiveStop(
        state.safetyMode,
        robotRecoveryPorts(robot, dashboard),
        true,
        this.o.recovery,
      );
      const after = robot.latest ?? state;
      return {
        message:
          `Protective stop unlocked and the control program restarted (safety ${after.safetyMode}, ` +
          `runtime ${after.runtimeState}); the arm holds still until a run arms it after its checks`,
        safetyMode: after.safetyMode,
        runtimeState: after.runtimeState,
      };
    } finally {
      this.running = false;
    }
  }
}
