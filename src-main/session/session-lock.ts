/**
 * The lock file next to a log being recorded. It names its owner by pid, host and process start
 * time: a pid alone is reused by the system after a crash, and a live stranger holding the dead
 * recorder's pid would otherwise keep the log from ever being recovered.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { z } from 'zod';
import { lockFileOf } from './sessions-dir';

const lockSchema = z
  .object({
    pid: z.number().int().positive(),
    hostname: z.string(),
    /** When the process started, as the system reports it (opaque: compared for equality only). */
    processStart: z.string().nullable(),
  })
  .strict();

export type SessionLock = z.infer<typeof lockSchema>;

/**
 * The start time of process `pid`, or null when it cannot be read. Linux: the start field of
 * /proc/PID/stat (clock ticks since boot); elsewhere: ps's start time.
 */
export function processStartOf(pid: number): string | null {
  try {
    if (process.platform === 'linux') {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses: count fields after its ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return fields[19] ?? null;
    }
    if (process.platform === 'win32') return null;
    const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return out.length > 0 ? out : null;
  } catch {
    return null;
  }
}

export function ownLock(): SessionLock {
  return { pid: process.pid, hostname: os.hostname(), processStart: processStartOf(process.pid) };
}

export async function writeSessionLock(logFile: string): Promise<void> {
  await writeFile(lockFileOf(logFile), `${JSON.stringify(ownLock())}\n`, { flag: 'wx' });
}

/**
 * Whether the lock's owner is a live process: the same pid with the same start time on this
 * host. A lock of another host cannot be checked from here and counts as held; a lock that does
 * not parse (including the bare pid of older versions, whose owner cannot be told from a
 * recycled pid) counts as stale.
 */
export function lockHeld(lock: SessionLock): boolean {
  if (lock.hostname !== os.hostname()) return true;
  try {
    process.kill(lock.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStartOf(lock.pid);
  // Without a start time on either side, the live pid is the best evidence there is.
  return lock.processStart === null || start === null || start === lock.processStart;
}

/** A live process holds the log's lock file. A missing, unreadable or stale lock is not held. */
export async function isBeingRecorded(logFile: string): Promise<boolean> {
  let lock: SessionLock;
  try {
    lock = lockSchema.parse(JSON.parse(await readFile(lockFileOf(logFile), 'utf8')));
  } catch {
    return false;
  }
  return lockHeld(lock);
}
