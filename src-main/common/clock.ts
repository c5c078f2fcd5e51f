/**
 * The one monotonic clock, for ages, intervals and deadlines (dates take contract/time.ts's
 * wallSeconds). It reads process.hrtime, whose origin is the same in every thread of the process:
 * a stamp taken in the safety thread or the lab thread compares as it is with one taken on the
 * main thread (each worker thread's performance.now() starts at an origin of its own).
 */

/** Monotonic time, s. */
export function monotonicSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** Monotonic time, ns: NatNet's echo timestamps carry it whole. */
export function monotonicNanoseconds(): bigint {
  return process.hrtime.bigint();
}
