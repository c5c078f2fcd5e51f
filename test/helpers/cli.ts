/** Runs `parapush` as a user does (node bin/parapush.mjs ...) and returns its exit code and output. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './scenes';

const run = promisify(execFile);

export async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [path.join(repoRoot, 'bin/parapush.mjs'), ...args], {
      cwd: repoRoot,
    });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
