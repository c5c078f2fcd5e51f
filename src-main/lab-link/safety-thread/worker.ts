/**
 * Entry of the safety thread (a node:worker_threads worker): wires the main thread's messages to
 * a SafetyCore and its reports back. Started by safety-thread.ts.
 */
import { enterWorkerThread } from '../../common/worker-thread';
import { SafetyCore } from './core';

// At raised priority, ahead of the planner, the recorder and whatever else runs on the machine.
const { port, priority } = enterWorkerThread('the safety thread');
const core = new SafetyCore((m) => port.postMessage(m));
core.priority(priority);
port.on('message', (m: unknown) => {
  if (m === 'close') void core.close().then(() => port.close());
  else void core.receive(m);
});
