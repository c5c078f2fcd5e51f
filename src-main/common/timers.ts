/**
 * Node's timers take milliseconds; every time of ours is in seconds. These are the one place a
 * duration is converted for a timer, so no `* 1000` is written where a timer is set.
 */

/** Runs `fn` once after `seconds` (setTimeout). */
export function after(seconds: number, fn: () => void): NodeJS.Timeout {
  return setTimeout(fn, seconds * 1000);
}

/** Runs `fn` every `seconds` (setInterval). */
export function every(seconds: number, fn: () => void): NodeJS.Timeout {
  return setInterval(fn, seconds * 1000);
}

/** Resolves after `seconds`. */
export function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}
