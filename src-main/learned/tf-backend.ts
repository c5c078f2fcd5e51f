/**
 * The TensorFlow.js backend: the native one (`@tensorflow/tfjs-node`, an optional dependency) when
 * it is installed, the WebAssembly backend otherwise. Backend start-up is asynchronous, so every
 * user of the learned model awaits tfBackendReady() once before the first prediction.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

export type TfBackendName = 'tensorflow' | 'wasm';

let ready: Promise<TfBackendName> | undefined;

async function tryNative(): Promise<boolean> {
  // A variable specifier keeps bundlers and the type checker from requiring the optional package.
  const nativePackage = '@tensorflow/tfjs-node';
  try {
    await import(/* @vite-ignore */ nativePackage);
    return await tf.setBackend('tensorflow');
  } catch {
    return false;
  }
}

async function start(): Promise<TfBackendName> {
  if (process.env.PARAPUSH_TF_BACKEND !== 'wasm' && (await tryNative())) return 'tensorflow';
  // In Node the wasm binaries are read from the package's dist folder instead of fetched.
  const require = createRequire(import.meta.url);
  const wasmFile = require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm');
  setWasmPaths(`${path.dirname(wasmFile)}${path.sep}`);
  if (!(await tf.setBackend('wasm')))
    throw new Error('TensorFlow.js: the WebAssembly backend failed to start');
  return 'wasm';
}

/** Starts the backend once per process; later calls return the same promise. */
export function tfBackendReady(): Promise<TfBackendName> {
  ready ??= start();
  return ready;
}

export { tf };
