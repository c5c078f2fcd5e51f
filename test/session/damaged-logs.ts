/**
 * Session logs to damage in tests: the bytes of a live log (as a crash leaves it, unchunked) and of
 * a finalized one, and where each record of a sound log lies (opcode u8, content length u64).
 */
import { readFileSync } from 'node:fs';
import type { LiveMcapFile } from '../../src-main/session/live-writer';
import { SessionRecorder } from '../../src-main/session/recorder';
import { recordEveryChannel, robotState } from './sample-messages';

export interface RecordSpan {
  op: number;
  start: number;
  end: number;
}

/** Records of a sound MCAP file after its magic, up to the footer (or the end of a live log). */
export function recordSpans(bytes: Uint8Array): RecordSpan[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const spans: RecordSpan[] = [];
  let at = 8;
  while (at + 9 <= bytes.byteLength) {
    const op = bytes[at]!;
    const end = at + 9 + Number(view.getBigUint64(at + 1, true));
    spans.push({ op, start: at, end });
    if (op === 2) break;
    at = end;
  }
  return spans;
}

/**
 * Records a session of every channel plus `robotStates` robot states; returns the bytes of its
 * live file as they stand before close() (what a kill -9 leaves once the last flush is on disk),
 * and of the finalized file after it.
 */
export async function sessionLogBytes(
  dir: string,
  robotStates: number,
): Promise<{ live: Uint8Array; finalized: Uint8Array }> {
  const rec = await SessionRecorder.create({
    dir,
    label: 'damaged',
    origin: 'test',
    flushInterval: 60,
  });
  recordEveryChannel(rec);
  for (let i = 0; i < robotStates; i++) rec.robotState(robotState(i / 500));
  await (rec as unknown as { live: LiveMcapFile }).live.flush();
  const live = readFileSync(rec.file);
  await rec.close();
  return { live, finalized: readFileSync(rec.file) };
}
