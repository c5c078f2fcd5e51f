/**
 * Recovery after a protective stop, and only on the operator's confirmation: the controller refuses
 * to unlock within 5 s of the stop, so we wait that out; the twist is zeroed before anything can
 * move (never resume with an old command) and the control program is sent again, because a
 * protective stop halts it. The supervisor is left disarmed: a new run needs fresh checks.
 */
import type { Supervisor } from './supervisor';

export interface RecoveryPorts {
  unlockProtectiveStop(): Promise<void>;
  zeroTwist(): void;
  resendProgram(): Promise<void>;
  waitForProgram(timeoutMs: number): Promise<void>;
}

export const UNLOCK_DELAY_MS = 5000;

export async function recoverFromProtectiveStop(
  supervisor: Supervisor,
  ports: RecoveryPorts,
  confirmedByOperator: boolean,
  options: { unlockDelayMs?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<void> {
  if (!confirmedByOperator)
    throw new Error('recovery from a protective stop needs the operator to confirm it');
  if (supervisor.state !== 'stopped' || supervisor.stopReason?.code !== 'protective-stop') {
    throw new Error('there is no protective stop to recover from');
  }
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const wait = (supervisor.stoppedAt ?? now()) + (options.unlockDelayMs ?? UNLOCK_DELAY_MS) - now();
  if (wait > 0) await sleep(wait);
  ports.zeroTwist();
  // The controller counts the 5 s from the stop on its own clock: if it still refuses, wait a
  // little and ask again, for a bounded time.
  for (let attempt = 1; ; attempt++) {
    try {
      await ports.unlockProtectiveStop();
      break;
    } catch (err) {
      if (attempt >= 10 || !/until/i.test((err as Error).message)) throw err;
      await sleep(500);
    }
  }
  await ports.resendProgram();
  await ports.waitForProgram(5000);
  supervisor.reset();
}
