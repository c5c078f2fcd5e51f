/**
 * The two clocks, in seconds: every time, age, limit and timestamp in the contract, the options
 * and the session log is in seconds. JavaScript's clocks read milliseconds; these are the one
 * place a reading is converted (timers take ms and convert where they are set).
 */

/** Wall clock, s since the epoch (Date.now() / 1000). */
export function wallSeconds(): number {
  return Date.now() / 1000;
}

/** Monotonic clock, s (performance.now() / 1000): for ages and intervals, never for dates. */
export function monotonicSeconds(): number {
  return performance.now() / 1000;
}
