/**
 * Entry of the safety thread (a node:worker_threads worker): wires the main thread's messages to
 * a SafetyCore and its reports back. Started by safety-thread.ts.
 */
import { parentPort } from 'node:worker_threads';
import { raiseThreadPriority } from '../../common/thread-priority';
import { SafetyCore } from './core';

const port = parentPort;
if (!port) throw new Error('the safety thread runs as a worker thread');
const core = new SafetyCore((m) => port.postMessage(m));
// Ahead of the planner, the recorder and whatever else runs on the machine (common/thread-priority.ts).
core.priority(raiseThreadPriority());
port.on('message', (m: unknown) => {
  if (m === 'close') void core.close().then(() => port.close());
  else void core.receive(m);
});
