/** Where the console finds its files, relative to the repository (or the unpacked app). */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** src-main/common -> repository root; out/main (the bundled shell) -> the same root. */
export const appRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const rendererOutDir = path.join(appRoot, 'out', 'renderer');
export const scenesDir = path.join(appRoot, 'resources', 'scenes');
export const tasksDir = path.join(appRoot, 'resources', 'tasks');
