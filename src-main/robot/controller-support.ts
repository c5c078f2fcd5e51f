/**
 * Which UR controllers the console drives, and the connect-time conditions it names instead of
 * failing bare: a PolyScope X controller (no Dashboard server), and RTDE inputs still held by a
 * previous session.
 */
import { RtdeClient, type ControllerVersion } from './rtde/client';
import { RtdeSetupError } from './rtde/setup-errors';

/** The words shown for a PolyScope X controller. */
export const POLYSCOPE_X_UNSUPPORTED =
  'PolyScope X (software 10.x) is not supported: it has no Dashboard server on port 29999 (its Robot API replaces it), which the console needs for power, brakes and recovery; use a CB3 (3.x) or e-Series (5.x) controller';

export class UnsupportedControllerError extends Error {
  override name = 'UnsupportedControllerError';
}

/**
 * Throws UnsupportedControllerError for a controller the console cannot drive: PolyScope X (10.x)
 * has no Dashboard server (URCL's dashboard client documentation: it is not available on
 * PolyScope X, whose Robot API from 10.11 replaces part of it).
 */
export function refuseUnsupportedController(version: ControllerVersion): void {
  if (version.major >= 10) throw new UnsupportedControllerError(POLYSCOPE_X_UNSUPPORTED);
}

/**
 * Asks the controller's version over RTDE (present on every series) and throws
 * UnsupportedControllerError for one the console cannot drive; any other answer, or none,
 * returns (the caller's own error then stands).
 */
export async function probeSupportedController(host: string, rtdePort: number, timeout = 2): Promise<void> {
  let version: ControllerVersion;
  try {
    const client = await RtdeClient.connect({ host, port: rtdePort, timeout });
    try {
      await client.negotiateProtocol();
      version = await client.controllerVersion();
    } finally {
      client.close();
    }
  } catch {
    return;
  }
  refuseUnsupportedController(version);
}

const LOW_REGISTER = /^input_(?:int|double)_register_(\d|1\d|2[0-3])$/;

/**
 * An input setup refused only because another session holds the inputs (IN_USE on registers
 * 24..47): after a pulled cable the controller keeps the old session's inputs until its TCP
 * connection times out (RTDE guide: one client per input field), so this passes by waiting. A
 * fieldbus owning registers 0..23 does not pass, and is not this.
 */
export function inputsHeld(err: unknown): boolean {
  return (
    err instanceof RtdeSetupError &&
    err.direction === 'input' &&
    err.failed.length > 0 &&
    err.failed.every((f) => f.reason === 'IN_USE' && !LOW_REGISTER.test(f.name))
  );
}

/** What the operator reads while the console waits for held inputs. */
export function inputsHeldNotice(retry: number): string {
  return `RTDE inputs held by a previous session; retrying for up to ${retry} s`;
}
