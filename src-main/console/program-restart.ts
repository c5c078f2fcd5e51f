/**
 * The checklist's "Restart control program" (robot.restart-program): sends the control program
 * again on the lab whose checklist the Setup view shows, when a previous stop has ended it. It
 * moves nothing and arms nothing (the program waits for a run to arm it), and it is refused while
 * a run owns the robot. Its answer says what it did, so that the event log tells the operator.
 */
import type { CommandResult } from '#contract/console-api';
import type { LabConnection } from '../lab-link/lab-connection';

export interface ProgramRestartOptions {
  /** The lab whose checklist the console shows; null when there is none. */
  session(): LabConnection | null;
  /** Whether a run owns the lab now. */
  runInProgress(): boolean;
}

export type ProgramRestartResult = CommandResult<'robot.restart-program'>;

export class ProgramRestarter {
  private running = false;

  constructor(private readonly o: ProgramRestartOptions) {}

  async restart(): Promise<ProgramRestartResult> {
    if (this.o.runInProgress())
      throw new Error(
        'the control program cannot be restarted while a run is in progress: the run restarts it',
      );
    if (this.running) throw new Error('the control program is being restarted already');
    const session = this.o.session();
    const link = session?.current() ?? null;
    if (!session || !link)
      throw new Error(
        `not connected to ${session ? `the ${session.description}` : 'a lab'}: no robot to restart`,
      );
    this.running = true;
    try {
      const r = await link.restartStoppedProgram();
      if (!r.restarted) return { restarted: false, message: `Control program not restarted: ${r.why}` };
      const now = link.robot.latest;
      return {
        restarted: true,
        message:
          `Control program restarted by the operator (was ${r.was}; now ` +
          `${now ? `runtime ${now.runtimeState}, program ${now.program.state}` : 'no robot state'}); nothing moves until a run arms it`,
      };
    } finally {
      this.running = false;
    }
  }
}
