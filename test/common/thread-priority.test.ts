/**
 * The safety and virtual-lab threads raise their own priority (common/thread-priority.ts): the
 * thread that asks gets it (its nice value and real-time round-robin scheduling), the rest of the
 * process keeps its own, and where the process may not raise priorities the answer says why
 * instead of throwing.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { raiseThreadPriority, RAISED_PRIORITY } from '../../src-main/common/thread-priority';

const entry = new URL('../../src-main/common/thread-priority.ts', import.meta.url).href;

/** Runs raiseThreadPriority in a fresh worker thread (through tsx) and returns its answer. */
function inWorker(): Promise<ReturnType<typeof raiseThreadPriority>> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })
      .then((m) => parentPort.postMessage(m.raiseThreadPriority()));`;
  const worker = new Worker(code, { eval: true });
  return new Promise((resolve, reject) => {
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('thread priority', () => {
  it('raises the asking thread only, or says why it cannot', async () => {
    const before = os.getPriority();
    const answer = await inWorker();
    if (answer.raised) {
      expect(answer.nice).toBe(RAISED_PRIORITY);
      // Real-time round-robin, or the reason it was refused.
      if (answer.realtime !== true) expect(answer.realtime.reason).toMatch(/CAP_SYS_NICE|chrt/);
    } else expect(answer.reason).toMatch(/CAP_SYS_NICE|Linux/);
    // The process (its main thread) keeps its priority and its normal scheduling whatever the worker got.
    expect(os.getPriority()).toBe(before);
    if (process.platform === 'linux')
      expect(readFileSync('/proc/thread-self/sched', 'utf8')).toMatch(/^policy\s*:\s*0$/m);
  });
});
