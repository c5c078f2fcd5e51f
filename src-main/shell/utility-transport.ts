/**
 * Fine workers as Electron utility processes: the app's WorkerTransport. The worker entry is
 * built by electron-vite next to the shell (out/main/fine-worker.js, see electron.vite.config.ts)
 * and talks through process.parentPort; messages cross by structured clone, so Float64Array
 * states arrive as they were sent, as with the Node children of the CLI.
 */
import { utilityProcess } from 'electron';
import path from 'node:path';
import { lowerWorkerPriority, type SpawnWorker, type WorkerTransport } from '../parareal/worker-transport';

/** Starts workers from the built entry in `dir` (the shell's own folder, out/main). */
export function utilityWorkerSpawner(dir: string): SpawnWorker {
  const entry = path.join(dir, 'fine-worker.js');
  return (): WorkerTransport => {
    const child = utilityProcess.fork(entry, [], { serviceName: 'Parapush fine worker', stdio: 'inherit' });
    let exited = false;
    child.once('spawn', () => lowerWorkerPriority(child.pid));
    child.once('exit', () => (exited = true));
    return {
      get pid() {
        return child.pid;
      },
      send: (message) => {
        if (!exited) child.postMessage(message);
      },
      onMessage: (handler) => void child.on('message', handler),
      onExit: (handler) => void child.once('exit', (code) => handler(code)),
      kill: () => void child.kill(),
    };
  };
}
