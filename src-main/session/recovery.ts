/**
 * Recovery of logs cut short by a crash or kill, or damaged: one file at a time, when the operator
 * asks (the console's Sessions view, `parapush log recover`), never on its own. A log still being
 * recorded by a live process is left alone; an already complete log is reported as such and not
 * touched. What recovery could not keep is said (bytes, ranges, messages), and when that is more
 * than a torn last record the original is kept as FILE.damaged.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { checkMcapMagic, finalizeSessionLog, isIndexedMcap, type LostData } from './finalize';
import { isBeingRecorded } from './session-lock';
import type { SessionSummary } from './session-summary';
import { lockFileOf, sessionFileNames } from './sessions-dir';

export type RecoveryResult =
  | {
      file: string;
      action: 'recovered';
      summary: SessionSummary;
      /** Messages in the recovered log. */
      messages: number;
      lost: LostData;
      /** The original, kept when more than a torn last record was lost; null otherwise. */
      damagedCopy: string | null;
    }
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
  const { summary, messages, lost, damagedCopy } = await finalizeSessionLog(file, true);
  await rm(lockFileOf(file), { force: true });
  return { file, action: 'recovered', summary, messages, lost, damagedCopy };
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
