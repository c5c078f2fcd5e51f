// Starts a worker thread from source (common/worker-thread.ts): a worker cannot take a loader hook
// on its command line, so this registers tsx and then imports the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
