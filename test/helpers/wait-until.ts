/**
 * Polls until `get` gives a value, for tests that wait on a run or a process; on time-out the
 * error names what was awaited and, when given, what the test saw so far.
 */
export async function waitUntil<T>(
  what: string,
  get: () => T | undefined | null | false,
  o: { timeoutMs?: number; seen?: () => string } = {},
): Promise<T> {
  const end = Date.now() + (o.timeoutMs ?? 30_000);
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}${o.seen ? `; seen: ${o.seen()}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
