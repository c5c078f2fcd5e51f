/**
 * Recovery of logs cut short by a crash or kill: on console start for the whole sessions folder,
 * and for one file from the CLI. A log still being recorded by a live process is left alone; an
 * already complete log is reported as such and not touched.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { checkMcapMagic, finalizeSessionLog, isIndexedMcap } from './finalize';
import { isBeingRecorded } from './session-lock';
import type { SessionSummary } from './session-summary';
import { lockFileOf, sessionFileNames } from './sessions-dir';

export type RecoveryResult =
  | { file: string; action: 'recovered'; summary: SessionSummary; discardedBytes: number }
  | { file: string; action: 'already-complete' }
  | { file: string; action: 'still-recording' }
  | { file: string; action: 'failed'; problem: string };

export async function recoverSessionFile(file: string): Promise<RecoveryResult> {
  await checkMcapMagic(file);
  if (await isBeingRecorded(file)) return { file, action: 'still-recording' };
  if (await isIndexedMcap(file)) {
    await rm(lockFileOf(file), { force: true });
    return { file, action: 'already-complete' };
  }
  const { summary, discardedBytes } = await finalizeSessionLog(file, true);
  await rm(lockFileOf(file), { force: true });
  return { file, action: 'recovered', summary, discardedBytes };
}

/** Recovers every cut-short log of a folder; never throws for one bad file. */
export async function recoverSessionsDir(dir: string): Promise<RecoveryResult[]> {
  const names = await sessionFileNames(dir);
  const results: RecoveryResult[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const r = await recoverSessionFile(file);
      if (r.action !== 'already-complete') results.push(r);
    } catch (err) {
      results.push({ file, action: 'failed', problem: (err as Error).message });
    }
  }
  return results;
}
