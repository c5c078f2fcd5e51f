/**
 * Entry of the safety thread (a node:worker_threads worker): wires the main thread's messages to
 * a SafetyCore and its reports back. Started by safety-thread.ts.
 */
import { parentPort } from 'node:worker_threads';
import { SafetyCore } from './core';

const port = parentPort;
if (!port) throw new Error('the safety thread runs as a worker thread');
const core = new SafetyCore((m) => port.postMessage(m));
port.on('message', (m: unknown) => {
  if (m === 'close') void core.close().then(() => port.close());
  else void core.receive(m);
});
