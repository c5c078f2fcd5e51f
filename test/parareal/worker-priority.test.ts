/**
 * Fine workers run below normal priority (parareal/worker-transport.ts), and never above the
 * priority they started with: a bench started with `nice -n 19` must not get workers that compete
 * with normal work.
 */
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { lowerWorkerPriority } from '../../src-main/parareal/worker-transport';

const BELOW_NORMAL = os.constants.priority.PRIORITY_BELOW_NORMAL;

describe('worker priority', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });
  // A process that idles until killed.
  const idle = (): ChildProcess => fork('-e', ['setInterval(() => {}, 1000)'], { stdio: 'ignore' });

  it('lowers a worker to below normal, or leaves it where it started when that is lower still', () => {
    child = idle();
    const started = os.getPriority(child.pid);
    lowerWorkerPriority(child.pid);
    expect(os.getPriority(child.pid)).toBe(Math.max(started, BELOW_NORMAL));
  });

  it('does not raise a worker started at the lowest priority', () => {
    child = idle();
    os.setPriority(child.pid!, 19);
    lowerWorkerPriority(child.pid);
    expect(os.getPriority(child.pid)).toBe(19);
  });
});
