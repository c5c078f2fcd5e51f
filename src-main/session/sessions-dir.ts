/**
 * Where session logs live: PARAPUSH_SESSIONS_DIR when set (tests, lab machines with a shared
 * disk), otherwise ~/.parapush/sessions. One file per run, named by its start time so the folder
 * lists in order: 2024-05-01T10-20-30-123Z_dry.mcap.
 */
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const SESSIONS_DIR_ENV = 'PARAPUSH_SESSIONS_DIR';

export function defaultSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[SESSIONS_DIR_ENV];
  return override && override.length > 0
    ? path.resolve(override)
    : path.join(os.homedir(), '.parapush', 'sessions');
}

/** A file name for a session started at `wall` (s since the epoch), e.g. 2024-05-01T10-20-30-123Z_dry.mcap. */
export function sessionFileName(wall: number, label: string): string {
  const stamp = new Date(wall * 1000).toISOString().replace(/[:.]/g, '-');
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40);
  return `${stamp}_${safe}.mcap`;
}

/** The lock file that marks a session as being written by a live process (holds its pid). */
export function lockFileOf(logFile: string): string {
  return `${logFile}.lock`;
}

/** Names of the session logs (.mcap) in a folder; none when the folder does not exist yet. */
export async function sessionFileNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith('.mcap'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
