/**
 * Scheduling priority of the calling thread. The drivers that run real arms give their control
 * thread a real-time or raised priority (ur_rtde's RTDEControlInterface asks for SCHED_FIFO, URCL
 * recommends a real-time kernel): a thread that wakes every few milliseconds must not wait behind
 * CPU-bound programs. Node has no thread API for it, but Linux schedules threads one by one and
 * setpriority(2) takes a thread id, which /proc/thread-self names.
 *
 * A nice value alone is not enough on Linux desktops and shared machines: with autogroup
 * scheduling (`/proc/sys/kernel/sched_autogroup_enabled`, on by default) the CPU is shared
 * between sessions first, and a thread's nice value orders it only against threads of its own
 * session. CPU-bound programs started from other terminals then hold the lab's and the safety
 * thread's whole session off the cores: on the shared two-core machine this was built on, both
 * threads at nice -14 received nothing for up to 575 ms. So the thread also asks for real-time
 * round-robin scheduling at the lowest real-time priority (SCHED_RR 1, through util-linux's
 * `chrt`, as Node cannot call sched_setscheduler), which every normal thread of every session
 * waits behind; the kernel's real-time throttling (95% of each second by default) keeps a runaway
 * thread from locking the machine. Round-robin, not FIFO, so several such threads (a lab and a
 * console on one machine) take turns.
 *
 * Both need CAP_SYS_NICE, or RLIMIT_NICE and RLIMIT_RTPRIO allowances (e.g. `@parapush - nice -14`
 * and `@parapush - rtprio 1` in limits.conf); without them the thread keeps what it could get and
 * the caller is told why.
 */
import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { z } from 'zod';

/** The priority raised threads ask for: os.constants.priority.PRIORITY_HIGH (nice -14). */
export const RAISED_PRIORITY = os.constants.priority.PRIORITY_HIGH;

/** The real-time priority raised threads ask for: the lowest, above every normal thread and below the kernel's. */
export const REALTIME_PRIORITY = 1;

/** Whether a thread runs at raised priority, or why not: as threads report it to their owner. */
export const priorityResultSchema = z.discriminatedUnion('raised', [
  z
    .object({
      raised: z.literal(true),
      nice: z.number().int(),
      /** Real-time round-robin at REALTIME_PRIORITY, or why not (the nice value then orders it only within its session). */
      realtime: z.union([z.literal(true), z.object({ reason: z.string() }).strict()]),
    })
    .strict(),
  z.object({ raised: z.literal(false), reason: z.string() }).strict(),
]);
export type PriorityResult = z.infer<typeof priorityResultSchema>;

/** The result in words, for a log line. */
export function describePriority(p: PriorityResult): string {
  if (!p.raised) return `normal priority: ${p.reason}`;
  return p.realtime === true
    ? `real-time priority (SCHED_RR ${REALTIME_PRIORITY}, nice ${p.nice})`
    : `raised priority (nice ${p.nice}; not real-time: ${p.realtime.reason})`;
}

/** Sets the calling thread's nice value to `nice` and asks for real-time scheduling; says what it got. */
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
  } catch (err) {
    return {
      raised: false,
      reason: `not permitted (${(err as Error).message}): needs CAP_SYS_NICE or RLIMIT_NICE`,
    };
  }
  return { raised: true, nice: os.getPriority(tid), realtime: realtime(tid) };
}

/** Asks for SCHED_RR at REALTIME_PRIORITY for thread `tid`. */
function realtime(tid: number): true | { reason: string } {
  const r = spawnSync('chrt', ['--rr', '--pid', String(REALTIME_PRIORITY), String(tid)], {
    encoding: 'utf8',
    timeout: 5000,
  });
  if (r.error) return { reason: `chrt (util-linux) not run: ${r.error.message}` };
  if (r.status !== 0)
    return {
      reason: `chrt refused (${r.stderr.trim() || `exit ${r.status}`}): needs CAP_SYS_NICE or RLIMIT_RTPRIO`,
    };
  return true;
}
