/**
 * From a recorded (or cut short, or damaged) session file to a valid, chunked and indexed MCAP
 * with a summary.
 *
 * The live file holds whole records one after the other (live-writer.ts); a crash or kill leaves
 * a partial record (or a few zero bytes) at its end, and a damaged disk or copy can leave a bad
 * record anywhere. Finalizing reads every record that parses (record-scan.ts resynchronises past
 * a bad one and keeps what follows), writes them again with the MCAP writer (chunks, message
 * indexes, statistics, summary) into a temporary file next to it, adds the session summary as a
 * metadata record, and renames it over the original (then syncs the folder, so the rename
 * survives a power cut): at no moment is there no readable log. When more than a torn last record
 * is lost, the original is kept beside it as FILE.damaged, and the result says what was lost.
 */
import { access, link, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { McapIndexedReader, McapWriter } from '@mcap/core';
import { FileReadable, FileWritable, syncDir } from './mcap-file';
import { scanRecords, type LostRange, type ScannedRecord } from './record-scan';
import { SessionLogError } from './session-log-error';
import { SUMMARY_METADATA_NAME, SummaryBuilder, type SessionSummary } from './session-summary';

const MCAP_MAGIC = new Uint8Array([0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a]);
/** Final chunks: big enough to index cheaply, small enough to seek a timeline quickly. */
const CHUNK_SIZE = 512 * 1024;

/** What a finalize could not carry over from the source. */
export interface LostData {
  /** Byte ranges of the source that held no readable record, before a torn tail, in order. */
  ranges: LostRange[];
  /** Bytes of a last record cut off by the end of the file (a crash's cut), 0 when none. */
  tornTailBytes: number;
  /** Bytes lost in all: the ranges and the torn tail. */
  bytes: number;
  /**
   * Messages missing by their channels' sequence numbers (each channel numbers its messages
   * 0, 1, 2, ...): those in the damaged ranges. Messages after the last one read are not counted.
   */
  messages: number;
}

export interface FinalizeResult {
  summary: SessionSummary;
  /** Messages written to the finalized log. */
  messages: number;
  lost: LostData;
  /** Where the original was kept (more than a torn tail was lost), or null. */
  damagedCopy: string | null;
}

/** Whether a finalize lost more than a crash's cut (the last, unfinished record). */
export function lostMoreThanTornTail(lost: LostData): boolean {
  return lost.ranges.length > 0 || lost.messages > 0;
}

/** What was lost, in one phrase for the operator. */
export function describeLoss(lost: LostData): string {
  const parts: string[] = [];
  if (lost.ranges.length > 0) {
    const shown = lost.ranges
      .slice(0, 3)
      .map((r) => `bytes ${r.start}-${r.end} (${r.reason})`)
      .join('; ');
    const more = lost.ranges.length > 3 ? `; and ${lost.ranges.length - 3} more` : '';
    parts.push(
      `${lost.messages} message${lost.messages === 1 ? '' : 's'} in ${lost.ranges.length} damaged range${lost.ranges.length === 1 ? '' : 's'} ` +
        `of ${lost.bytes - lost.tornTailBytes} bytes: ${shown}${more}`,
    );
  }
  if (lost.tornTailBytes > 0) parts.push(`${lost.tornTailBytes} bytes of a torn last record`);
  return parts.length === 0 ? 'nothing lost' : `lost ${parts.join('; and ')}`;
}

/** Whether a file is already a complete, indexed MCAP (footer and summary readable). */
export async function isIndexedMcap(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    await McapIndexedReader.Initialize({ readable: new FileReadable(handle) });
    return true;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/** Checks the first bytes: an empty file or one that is not MCAP gets a clear error. */
export async function checkMcapMagic(file: string): Promise<void> {
  const size = (await stat(file)).size;
  if (size === 0) throw new SessionLogError(`${file}: empty file (0 bytes), not a session log`);
  const handle = await open(file, 'r');
  try {
    const head = new Uint8Array(MCAP_MAGIC.byteLength);
    const { bytesRead } = await handle.read(head, 0, head.byteLength, 0);
    if (bytesRead < head.byteLength || !head.every((b, i) => b === MCAP_MAGIC[i]))
      throw new SessionLogError(`${file}: not an MCAP file (it does not start with the MCAP magic bytes)`);
  } finally {
    await handle.close();
  }
}

/**
 * Rewrites `file` in place as an indexed MCAP. `recovered` marks a log that was cut short (its
 * summary then says "interrupted" unless the run's outcome was already recorded).
 */
export async function finalizeSessionLog(file: string, recovered: boolean): Promise<FinalizeResult> {
  await checkMcapMagic(file);
  const temp = `${file}.finalizing`;
  await rm(temp, { force: true });
  // Whole: resynchronising looks ahead and back. A session log is tens of MB.
  const source = await readFile(file);
  const target = await open(temp, 'wx');
  try {
    const writer = new McapWriter({ writable: new FileWritable(target), chunkSize: CHUNK_SIZE });
    const result = await copyRecords(source, writer, recovered);
    await writer.end();
    await target.sync();
    await target.close();
    // The original stays readable under its own name until the rename, and as FILE.damaged after it.
    const damagedCopy = lostMoreThanTornTail(result.lost) ? await keepDamaged(file) : null;
    await rename(temp, file);
    // Without this, a power cut can bring back the old name pointing at the unfinalized file.
    await syncDir(path.dirname(file));
    return { ...result, damagedCopy };
  } catch (err) {
    await target.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
}

/** A second name for the original (FILE.damaged, or FILE.damaged-2, ...): the rename then keeps it. */
async function keepDamaged(file: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${file}.damaged` : `${file}.damaged-${n}`;
    const taken = await access(name).then(
      () => true,
      () => false,
    );
    if (taken) continue;
    await link(file, name);
    return name;
  }
}

async function copyRecords(
  source: Uint8Array,
  writer: McapWriter,
  recovered: boolean,
): Promise<Omit<FinalizeResult, 'damagedCopy'>> {
  const summary = new SummaryBuilder();
  // Source ids -> writer ids: the writer numbers schemas and channels itself.
  const schemaIds = new Map<number, number>();
  const channels = new Map<number, { id: number; topic: string; lastSequence: number }>();
  let started = false;
  let messages = 0;
  let missing = 0;

  const take = async (record: ScannedRecord): Promise<void> => {
    switch (record.type) {
      case 'Header':
        // A second header can only be a resynchronisation onto stray bytes: the first one holds.
        if (started) break;
        await writer.start({ profile: record.profile, library: record.library });
        started = true;
        break;
      case 'Schema':
        if (started && !schemaIds.has(record.id))
          schemaIds.set(
            record.id,
            await writer.registerSchema({ name: record.name, encoding: record.encoding, data: record.data }),
          );
        break;
      case 'Channel':
        if (started && !channels.has(record.id)) {
          const id = await writer.registerChannel({
            schemaId: schemaIds.get(record.schemaId) ?? 0,
            topic: record.topic,
            messageEncoding: record.messageEncoding,
            metadata: record.metadata,
          });
          channels.set(record.id, { id, topic: record.topic, lastSequence: -1 });
        }
        break;
      case 'Message': {
        const channel = channels.get(record.channelId);
        if (!channel) break;
        if (record.sequence > channel.lastSequence + 1) missing += record.sequence - channel.lastSequence - 1;
        channel.lastSequence = Math.max(channel.lastSequence, record.sequence);
        await writer.addMessage({ ...record, channelId: channel.id });
        summary.add(channel.topic, record.logTime, record.data);
        messages++;
        break;
      }
      case 'Footer':
        break;
    }
  };

  const scan = await scanRecords(source, take);
  if (!started) throw new SessionLogError('the log has no complete MCAP header: nothing to recover');
  const built = summary.build(recovered);
  await writer.addMetadata({
    name: SUMMARY_METADATA_NAME,
    metadata: new Map([['summary', JSON.stringify(built)]]),
  });
  const rangeBytes = scan.lost.reduce((sum, r) => sum + r.end - r.start, 0);
  return {
    summary: built,
    messages,
    lost: {
      ranges: scan.lost,
      tornTailBytes: scan.tornTail,
      bytes: rangeBytes + scan.tornTail,
      messages: missing,
    },
  };
}
