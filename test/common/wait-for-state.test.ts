/**
 * Waiting on a state emitter (common/wait-for-state.ts), as the robot link and its main-thread
 * mirror do: the latest state counts, later ones are checked as they come, and a wait that is
 * never satisfied ends with what was awaited and lets go of its listener.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { waitForState } from '../../src-main/common/wait-for-state';

class Counter extends EventEmitter<{ state: [number] }> {
  latest: number | undefined;
  report(n: number): void {
    this.latest = n;
    this.emit('state', n);
  }
}

describe('waitForState', () => {
  it('resolves at once with the latest state when it already satisfies the predicate', async () => {
    const c = new Counter();
    c.report(0);
    expect(await waitForState(c, (n) => n === 0, 1)).toBe(0);
    expect(c.listenerCount('state')).toBe(0);
  });

  it('resolves with the first later state that satisfies it and stops listening', async () => {
    const c = new Counter();
    c.report(1);
    const waiting = waitForState(c, (n) => n >= 3, 10);
    c.report(2);
    c.report(4);
    c.report(5);
    expect(await waiting).toBe(4);
    expect(c.listenerCount('state')).toBe(0);
  });

  it('rejects naming what was awaited when no state satisfies it, and stops listening', async () => {
    const c = new Counter();
    const waiting = waitForState(c, (n) => n < 0, 0.02, 'robot state');
    c.report(1);
    await expect(waiting).rejects.toThrow('robot state not reached within 0.02 s');
    expect(c.listenerCount('state')).toBe(0);
  });
});
