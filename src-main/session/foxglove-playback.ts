/**
 * A recorded session served over the Foxglove WebSocket protocol as if it were live: its messages
 * go out through a FoxgloveLive server (foxglove-live.ts) in log-time order, paced by their log
 * times at the given speed, each stamped with its recorded log time. Messages are sent as the
 * current log format writes them (read back and checked by SessionLog, so an older log's forms
 * are upgraded; null fields left out, absent-nulls.ts), so they match the schemas the server
 * advertises.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { withoutNulls } from './absent-nulls';
import { hasNullableFields, isFoxgloveTopic } from './channels';
import type { FoxgloveLive } from './foxglove-live';
import type { SessionLog } from './reader';
import { monotonicSeconds } from '../common/clock';

export interface PlaybackServeOptions {
  /** Play speed: 1 real time, 10 ten times faster. */
  speed: number;
  /** Stops the playback between messages. */
  signal?: AbortSignal;
}

const encoder = new TextEncoder();

/** Plays the log once through the server; returns the number of messages sent. */
export async function serveRecordedSession(
  log: SessionLog,
  live: FoxgloveLive,
  o: PlaybackServeOptions,
): Promise<number> {
  if (!(o.speed > 0)) throw new Error(`speed must be above 0, not ${o.speed}`);
  let first: bigint | null = null;
  const start = monotonicSeconds();
  let sent = 0;
  for await (const m of log.messages()) {
    if (o.signal?.aborted) break;
    first ??= m.logTime;
    const due = Number(m.logTime - first) / 1e9 / o.speed - (monotonicSeconds() - start);
    if (due > 0) await sleep(due * 1000);
    const replacer = !isFoxgloveTopic(m.topic) && hasNullableFields(m.topic) ? withoutNulls : undefined;
    live.tap(m.topic, m.logTime, encoder.encode(JSON.stringify(m.message, replacer)));
    sent++;
  }
  return sent;
}
