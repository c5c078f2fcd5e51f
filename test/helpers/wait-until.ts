import { monotonicSeconds } from '../../src-main/common/clock';
import { sleep } from '../../src-main/common/timers';

/**
 * Polls until `get` gives a value, for tests that wait on a run or a process; on time-out the
 * error names what was awaited and, when given, what the test saw so far.
 */
export async function waitUntil<T>(
  what: string,
  get: () => T | undefined | null | false,
  o: { timeout?: number; seen?: () => string } = {},
): Promise<T> {
  const end = monotonicSeconds() + (o.timeout ?? 30);
  for (;;) {
    const v = get();
    if (v) return v;
    if (monotonicSeconds() > end)
      throw new Error(`timed out waiting for ${what}${o.seen ? `; seen: ${o.seen()}` : ''}`);
    await sleep(0.01);
  }
}
