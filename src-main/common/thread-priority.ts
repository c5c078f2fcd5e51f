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

/** The priority raised threads ask for: os.constants.priority.PRIORITY_HIGH (nice -14). */
export const RAISED_PRIORITY = os.constants.priority.PRIORITY_HIGH;

export type PriorityResult = { raised: true; nice: number } | { raised: false; reason: string };

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
