/**
 * Waiting on something that reports its state as `state` events and keeps the latest one: the
 * robot link (robot/ur5-connection.ts) and its mirror on the main thread (lab-link/safety-thread/
 * mirrors.ts) both answer "resolve once the robot is in such a state" this way.
 */
import { after } from './timers';

/** A source of states: the latest one kept, each new one emitted as `state`. */
export interface StateEmitter<S> {
  readonly latest: S | undefined;
  on(event: 'state', listener: (s: S) => void): unknown;
  off(event: 'state', listener: (s: S) => void): unknown;
}

/**
 * Resolves with the first state (the latest included) that satisfies `predicate`; rejects after
 * `timeout` s naming `what` was awaited.
 */
export function waitForState<S>(
  source: StateEmitter<S>,
  predicate: (s: S) => boolean,
  timeout: number,
  what = 'state',
): Promise<S> {
  const latest = source.latest;
  if (latest !== undefined && predicate(latest)) return Promise.resolve(latest);
  return new Promise((resolve, reject) => {
    const onState = (s: S): void => {
      if (!predicate(s)) return;
      clearTimeout(timer);
      source.off('state', onState);
      resolve(s);
    };
    const timer = after(timeout, () => {
      source.off('state', onState);
      reject(new Error(`${what} not reached within ${timeout} s`));
    });
    source.on('state', onState);
  });
}
