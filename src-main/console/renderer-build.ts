/**
 * Web mode serves the built renderer. It is built with Vite, from the same config the Electron
 * build uses, when out/renderer is missing (a fresh clone) or was built from other sources (a
 * checkout that moved on since): a UI older than the core it talks to fails on the first message
 * whose schema changed, so a stale build is rebuilt, never served.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What the renderer is built from: its own sources, the contract it imports (nothing else: lint) and the manifest that aliases it, the locked packages. */
const RENDERER_INPUTS = ['src-renderer', 'src-shared/contract', 'package.json', 'package-lock.json'];

/** Written into the build folder: the digest of the inputs it was built from. */
const STAMP = 'source-digest.txt';

function filesUnder(entry: string): string[] {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)));
}

/** SHA-256 over the renderer's inputs (paths and contents, in a fixed order). */
export function rendererSourceDigest(inputs: readonly string[] = RENDERER_INPUTS): string {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesUnder).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

export async function ensureRendererBuilt(
  rendererDir: string,
  say: (line: string) => void,
  digest: string = rendererSourceDigest(),
): Promise<void> {
  const stamp = path.join(rendererDir, STAMP);
  const built = existsSync(path.join(rendererDir, 'index.html'));
  if (built && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  say(
    built
      ? `The console UI in ${rendererDir} was built from other sources: rebuilding it with Vite, this takes a moment...`
      : `The console UI is not built yet (${rendererDir} is missing): building it with Vite, this takes a moment...`,
  );
  const [{ build }, { rendererConfig }] = await Promise.all([
    import('vite'),
    import('../../src-renderer/vite.config'),
  ]);
  await build({ ...rendererConfig({ outDir: rendererDir }), logLevel: 'warn', configFile: false });
  if (!existsSync(path.join(rendererDir, 'index.html')))
    throw new Error(`the renderer build did not produce ${rendererDir}/index.html`);
  writeFileSync(stamp, digest);
  say('Console UI built.');
}
