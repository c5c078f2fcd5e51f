/**
 * The app's WorkerTransport over Electron utility processes, against a stand-in for
 * utilityProcess (Electron is not installed where the tests run): the pool's contract of send,
 * messages, one exit report and kill, on the built worker entry next to the shell.
 */
import { spawn as spawnProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

class FakeUtilityProcess extends EventEmitter {
  pid: number | undefined = undefined;
  posted: unknown[] = [];
  killed = false;
  postMessage(message: unknown): void {
    this.posted.push(message);
  }
  kill(): boolean {
    this.killed = true;
    this.emit('exit', 9);
    return true;
  }
}

const forks: { modulePath: string; options: unknown; child: FakeUtilityProcess }[] = [];
vi.mock('electron', () => ({
  utilityProcess: {
    fork: (modulePath: string, _args: string[], options: unknown) => {
      const child = new FakeUtilityProcess();
      forks.push({ modulePath, options, child });
      return child;
    },
  },
}));

const { utilityWorkerSpawner } = await import('../../src-main/shell/utility-transport');

describe('utility-process worker transport', () => {
  it('forks the built fine worker next to the shell and carries messages both ways', () => {
    const spawn = utilityWorkerSpawner('/app/out/main');
    const worker = spawn();
    const { modulePath, child } = forks.at(-1)!;
    expect(modulePath).toBe(path.join('/app/out/main', 'fine-worker.js'));
    // The pid appears once the process has spawned; then the worker drops below normal priority.
    expect(worker.pid).toBeUndefined();
    const stand = spawnProcess('sleep', ['30']);
    try {
      child.pid = stand.pid;
      expect(worker.pid).toBe(stand.pid);
      expect(os.getPriority(stand.pid)).toBe(os.constants.priority.PRIORITY_NORMAL);
      child.emit('spawn');
      expect(os.getPriority(stand.pid)).toBe(os.constants.priority.PRIORITY_BELOW_NORMAL);
    } finally {
      stand.kill();
    }

    const received: unknown[] = [];
    worker.onMessage((m) => received.push(m));
    const states = [new Float64Array([1, 2, 3])];
    child.emit('message', { type: 'result', result: { id: 1, states, seconds: 0.002 } });
    expect(received).toEqual([{ type: 'result', result: { id: 1, states, seconds: 0.002 } }]);

    worker.send({ type: 'jobs', jobs: [] });
    expect(child.posted).toEqual([{ type: 'jobs', jobs: [] }]);
  });

  it('reports the exit once with its code and sends nothing to an exited process', () => {
    const worker = utilityWorkerSpawner('/app/out/main')();
    const { child } = forks.at(-1)!;
    const exits: (number | null)[] = [];
    worker.onExit((code) => exits.push(code));
    worker.kill();
    expect(child.killed).toBe(true);
    child.emit('exit', 0); // a late duplicate is not reported again
    expect(exits).toEqual([9]);
    worker.send({ type: 'jobs', jobs: [] });
    expect(child.posted).toEqual([]);
  });
});
