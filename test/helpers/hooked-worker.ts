/**
 * A real fine worker whose incoming messages pass through a hook first: fault-injection tests see,
 * change or drop what the pool sends and act on the worker (stop it, kill it) around the send.
 */
import { spawnNodeWorker, type WorkerTransport } from '../../src-main/parareal/worker-transport';

export type SendHook = (
  message: { type: string },
  forward: (message: unknown) => void,
  worker: WorkerTransport,
) => void;

export function spawnWithSendHook(hook: SendHook): WorkerTransport {
  const worker = spawnNodeWorker();
  return {
    ...worker,
    send: (m: unknown) => hook(m as { type: string }, (x) => worker.send(x), worker),
  };
}
