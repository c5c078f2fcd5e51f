/**
 * electron-vite: the main process (shell + plain-Node core + utility-process workers), the
 * sandboxed preload, and the Svelte renderer. Targets are explicit so the build does not need
 * the electron package (absent where its binary cannot be downloaded).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import { rendererConfig } from './src-renderer/vite.config';

const root = path.dirname(fileURLToPath(import.meta.url));
const from = (p: string) => path.join(root, p);

/** The Electron this build targets: 41 ships Node 24.14 and Chromium 146. */
const ELECTRON_MAJOR = '41';
const NODE_TARGET = 'node24.14';
// electron-vite reads the Electron version to decide whether ESM main output is allowed; tell
// it when the package is not installed rather than letting it fall back to CommonJS.
process.env['ELECTRON_MAJOR_VER'] ??= existsSync(from('node_modules/electron/package.json'))
  ? ''
  : ELECTRON_MAJOR;
if (process.env['ELECTRON_MAJOR_VER'] === '') delete process.env['ELECTRON_MAJOR_VER'];

/**
 * Main-process entries: the shell, and the utility-process workers (started with
 * utilityProcess.fork from out/main/<name>.js). Add a worker here by name.
 */
const mainEntries: Record<string, string> = {
  index: from('src-main/shell/main.ts'),
  // The safety thread's entry (a worker thread): lab-link/safety-thread/safety-thread.ts starts
  // out/main/safety-worker.js when it sits next to the bundle.
  'safety-worker': from('src-main/lab-link/safety-thread/worker.ts'),
  // The console's virtual lab runs in a worker thread of its own: virtual-lab/lab-thread/lab-thread.ts
  // starts out/main/lab-worker.js when it sits next to the bundle.
  'lab-worker': from('src-main/virtual-lab/lab-thread/worker.ts'),
  ...(existsSync(from('src-workers/fine-worker.ts'))
    ? { 'fine-worker': from('src-workers/fine-worker.ts') }
    : {}),
};

export default defineConfig({
  main: {
    build: {
      target: NODE_TARGET,
      outDir: from('out/main'),
      rolldownOptions: { input: mainEntries, output: { format: 'es', entryFileNames: '[name].js' } },
    },
  },
  preload: {
    build: {
      target: NODE_TARGET,
      outDir: from('out/preload'),
      // A sandboxed preload can require nothing but 'electron': bundle zod and the contract into
      // one CommonJS file (.cjs because the package is "type": "module").
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: from('src-main/shell/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: rendererConfig(),
});
