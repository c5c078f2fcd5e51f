/**
 * The wall clock, in seconds: every time, age, limit and timestamp in the contract, the options
 * and the session log is in seconds. The monotonic clock needs Node (process.hrtime, one origin
 * for every thread) and lives in src-main/common/clock.ts.
 */

/** Wall clock, s since the epoch (Date.now() / 1000). */
export function wallSeconds(): number {
  return Date.now() / 1000;
}
