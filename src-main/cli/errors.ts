/** Turns any error that reaches the top of a command into one clear message and an exit code. */
import { existsSync } from 'node:fs';
import { CommanderError } from 'commander';

/**
 * Errors of a lab link (robot, gripper, motion capture): the lab's state, told in words for the
 * operator, not a fault of this program, so no stack trace. Loaded only once an error needs
 * sorting: `parapush --help` (a CommanderError) must not import the device clients.
 */
async function linkErrors(): Promise<readonly (abstract new (...args: never[]) => Error)[]> {
  const [mocap, dashboard, gripper, lineClient, rtde, rtdeSetup, ur5] = await Promise.all([
    import('../mocap/client'),
    import('../robot/dashboard'),
    import('../robot/gripper'),
    import('../robot/line-client'),
    import('../robot/rtde/client'),
    import('../robot/rtde/setup-errors'),
    import('../robot/ur5-connection'),
  ]);
  return [
    rtde.RtdeConnectionError,
    rtdeSetup.RtdeSetupError,
    ur5.LinkDownError,
    dashboard.DashboardRefusedError,
    lineClient.LineClientError,
    gripper.GripperError,
    mocap.NatNetLinkError,
  ];
}

/** Exit codes the README promises: 1 for a failure, 2 for bad input (usage, files, options). */
export const EXIT_FAILURE = 1;
export const EXIT_BAD_INPUT = 2;

/** An error meant for the user as it is: no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** One wording for a path that names nothing, whatever kind of file the command wanted. */
export function noSuchFile(file: string, option?: string): UsageError {
  return new UsageError(`${option ? `${option}: ` : ''}no such file: ${file}`);
}

/** Fails with "no such file" up front, before a reader fails with its own, vaguer message. */
export function requireFile(file: string, option?: string): string {
  if (!existsSync(file)) throw noSuchFile(file, option);
  return file;
}

export async function reportCliError(err: unknown): Promise<number> {
  // Commander has already printed its message (or the help, or the version).
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
  const { SceneFileError } = await import('#contract/scene-file');
  if (err instanceof SceneFileError || err instanceof UsageError) {
    process.stderr.write(`parapush: ${err.message}\n`);
    return EXIT_BAD_INPUT;
  }
  if ((await linkErrors()).some((kind) => err instanceof kind)) {
    const message = (err as Error).message;
    const hint = /ECONNREFUSED/.test(message)
      ? ' (nothing listens there: is the robot controller, Motive or `parapush lab` running, and is the address right?)'
      : '';
    process.stderr.write(`parapush: ${message}${hint}\n`);
    return EXIT_FAILURE;
  }
  const missing = missingPath(err);
  if (missing !== null) {
    process.stderr.write(`parapush: ${noSuchFile(missing).message}\n`);
    return EXIT_BAD_INPUT;
  }
  process.stderr.write(`parapush: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT_FAILURE;
}

/** The path of a Node "file not found" error, for commands that open files without checking first. */
function missingPath(err: unknown): string | null {
  const e = err as NodeJS.ErrnoException | null;
  return e?.code === 'ENOENT' && typeof e.path === 'string' ? e.path : null;
}
