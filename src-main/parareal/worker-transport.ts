/**
 * How the pool reaches a worker process. The pool only sees this interface; under Node (CLI,
 * tests, web mode) workers are child processes running the TypeScript entry through tsx, in the
 * Electron app they are utility processes (src-main/shell/utility-transport.ts).
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerTransport {
  readonly pid: number | undefined;
  send(message: unknown): void;
  onMessage(handler: (message: unknown) => void): void;
  /** Called once when the process ends, however it ends. */
  onExit(handler: (code: number | null) => void): void;
  kill(): void;
}

export type SpawnWorker = () => WorkerTransport;

/**
 * Fine workers are batch computation and run below normal priority: on a machine with as many
 * busy workers as cores, the supervisor, the lab links and the console (and a virtual lab in this
 * process or beside it) must still get a core within milliseconds. At the same priority a worker
 * starting up or a step's burst of slices held them off the CPU for over 100 ms on two cores, and
 * the supervisor rightly stopped the run on stale motion capture. Idle cores still go to the
 * workers, so planning loses nothing when nothing else needs the CPU. Lower only: a worker of a
 * process started below that (`nice -n 19 npm run bench`, to take only idle cores) keeps the
 * priority it was started with instead of being raised to below-normal.
 */
export function lowerWorkerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    const nice = Math.max(os.getPriority(pid), os.constants.priority.PRIORITY_BELOW_NORMAL);
    os.setPriority(pid, nice);
  } catch {
    // The process may already have exited (its exit is reported through onExit).
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const fineWorkerEntry = path.resolve(here, '../../src-workers/fine-worker.ts');

/** A child process running the fine worker from source (tsx registered as an import hook). */
export const spawnNodeWorker: SpawnWorker = () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork(fineWorkerEntry, [], {
    execArgv: ['--import', tsx],
    serialization: 'advanced', // structured clone: Float64Array states cross without copying to JSON
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  lowerWorkerPriority(child.pid);
  return {
    pid: child.pid,
    send: (m) => {
      if (child.connected) child.send(m as never);
    },
    onMessage: (h) => child.on('message', h),
    onExit: (h) => child.once('exit', (code) => h(code)),
    kill: () => child.kill('SIGKILL'),
  };
};
