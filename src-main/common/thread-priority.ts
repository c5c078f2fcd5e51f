/**
 * Scheduling priority of the calling thread. The drivers that run real arms give their control
 * thread a real-time or raised priority (ur_rtde's RTDEControlInterface asks for SCHED_FIFO, URCL
 * recommends a real-time kernel): a thread that wakes every few milliseconds must not wait behind
 * CPU-bound programs. Node has no thread API for it, but Linux schedules threads one by one and
 * setpriority(2) takes a thread id, which /proc/thread-self names. Raising a priority needs
 * CAP_SYS_NICE or an RLIMIT_NICE allowance (e.g. `@parapush - nice -10` in limits.conf); without
 * it the thread keeps normal priority and the caller is told why.
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { z } from 'zod';

/** The priority raised threads ask for: os.constants.priority.PRIORITY_HIGH (nice -14). */
export const RAISED_PRIORITY = os.constants.priority.PRIORITY_HIGH;

/** Whether a thread runs at raised priority, or why not: as threads report it to their owner. */
export const priorityResultSchema = z.discriminatedUnion('raised', [
  z.object({ raised: z.literal(true), nice: z.number().int() }).strict(),
  z.object({ raised: z.literal(false), reason: z.string() }).strict(),
]);
export type PriorityResult = z.infer<typeof priorityResultSchema>;

/** The result in words, for a log line: "nice -14", or why the thread runs at normal priority. */
export function describePriority(p: PriorityResult): string {
  return p.raised ? `raised priority (nice ${p.nice})` : `normal priority: ${p.reason}`;
}

/** Sets the calling thread's nice value to `nice`; says whether it could. */
export function raiseThreadPriority(nice: number = RAISED_PRIORITY): PriorityResult {
  let tid: number;
  try {
    // "PID/task/TID" on Linux; absent elsewhere.
    tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return { raised: false, reason: 'thread priorities are set on Linux only' };
  }
  if (!Number.isInteger(tid) || tid <= 0)
    return { raised: false, reason: 'no thread id in /proc/thread-self' };
  try {
    os.setPriority(tid, nice);
    return { raised: true, nice: os.getPriority(tid) };
  } catch (err) {
    return {
      raised: false,
      reason: `not permitted (${(err as Error).message}): needs CAP_SYS_NICE or RLIMIT_NICE`,
    };
  }
}
