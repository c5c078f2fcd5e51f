/**
 * Web mode serves the built renderer. When out/renderer is missing (a fresh clone), it is built
 * once with Vite from the same config the Electron build uses.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export async function ensureRendererBuilt(rendererDir: string, say: (line: string) => void): Promise<void> {
  if (existsSync(path.join(rendererDir, 'index.html'))) return;
  say(
    `The console UI is not built yet (${rendererDir} is missing): building it with Vite, this takes a moment...`,
  );
  const [{ build }, { rendererConfig }] = await Promise.all([
    import('vite'),
    import('../../src-renderer/vite.config'),
  ]);
  await build({ ...rendererConfig({ outDir: rendererDir }), logLevel: 'warn', configFile: false });
  if (!existsSync(path.join(rendererDir, 'index.html')))
    throw new Error(`the renderer build did not produce ${rendererDir}/index.html`);
  say('Console UI built.');
}
