/**
 * From a recorded (or cut short) session file to a valid, chunked and indexed MCAP with a summary.
 *
 * The live file holds whole records one after the other (live-writer.ts); a crash or kill can
 * only leave a partial record (or a few zero bytes) at its end. Finalizing reads every complete
 * record up to the first one that does not parse, writes them again with the MCAP writer
 * (chunks, message indexes, statistics, summary) into a temporary file next to it, adds the
 * session summary as a metadata record, and renames it over the original (then syncs the folder,
 * so the rename survives a power cut): at no moment is there no readable log.
 */
import { open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { McapIndexedReader, McapStreamReader, McapWriter, type McapTypes } from '@mcap/core';
import { FileReadable, FileWritable, syncDir } from './mcap-file';
import { SessionLogError } from './session-log-error';
import { SUMMARY_METADATA_NAME, SummaryBuilder, type SessionSummary } from './session-summary';

const MCAP_MAGIC = new Uint8Array([0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a]);
const READ_PIECE = 1 << 20;
/** Final chunks: big enough to index cheaply, small enough to seek a timeline quickly. */
const CHUNK_SIZE = 512 * 1024;

export interface FinalizeResult {
  summary: SessionSummary;
  /** Bytes at the end of the source that did not form a complete record (lost to the crash). */
  discardedBytes: number;
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
  const source = await open(file, 'r');
  const target = await open(temp, 'wx');
  try {
    const writer = new McapWriter({ writable: new FileWritable(target), chunkSize: CHUNK_SIZE });
    const result = await copyRecords(source, writer, recovered);
    await writer.end();
    await target.sync();
    await source.close();
    await target.close();
    await rename(temp, file);
    // Without this, a power cut can bring back the old name pointing at the unfinalized file.
    await syncDir(path.dirname(file));
    return result;
  } catch (err) {
    await source.close().catch(() => undefined);
    await target.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
}

async function copyRecords(
  source: Awaited<ReturnType<typeof open>>,
  writer: McapWriter,
  recovered: boolean,
): Promise<FinalizeResult> {
  const reader = new McapStreamReader({ validateCrcs: true });
  const summary = new SummaryBuilder();
  // Source ids -> writer ids: the writer numbers schemas and channels itself.
  const schemaIds = new Map<number, number>();
  const channels = new Map<number, { id: number; topic: string }>();
  const pieces = new Uint8Array(READ_PIECE);
  let position = 0;
  let broken = false;
  let started = false;
  let sawFooter = false;

  const take = async (record: McapTypes.TypedMcapRecord): Promise<void> => {
    switch (record.type) {
      case 'Header':
        await writer.start({ profile: record.profile, library: record.library });
        started = true;
        break;
      case 'Schema':
        if (!schemaIds.has(record.id))
          schemaIds.set(
            record.id,
            await writer.registerSchema({ name: record.name, encoding: record.encoding, data: record.data }),
          );
        break;
      case 'Channel':
        if (!channels.has(record.id)) {
          const id = await writer.registerChannel({
            schemaId: schemaIds.get(record.schemaId) ?? 0,
            topic: record.topic,
            messageEncoding: record.messageEncoding,
            metadata: record.metadata,
          });
          channels.set(record.id, { id, topic: record.topic });
        }
        break;
      case 'Message': {
        const channel = channels.get(record.channelId);
        if (!channel) break;
        await writer.addMessage({ ...record, channelId: channel.id });
        summary.add(channel.topic, record.logTime, record.data);
        break;
      }
      case 'Footer':
        sawFooter = true;
        break;
      default:
        // Chunk framing, indexes and the old summary are rebuilt by the writer.
        break;
    }
  };

  while (!broken) {
    const { bytesRead } = await source.read(pieces, 0, READ_PIECE, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    reader.append(pieces.subarray(0, bytesRead));
    try {
      for (let r; (r = reader.nextRecord());) await take(r);
    } catch {
      // A record that does not parse (torn write, zero fill after a crash): keep what came before.
      broken = true;
    }
  }
  if (!started) throw new SessionLogError('the log has no complete MCAP header: nothing to recover');
  const total = (await source.stat()).size;
  // After a parse error the reader's state is unspecified: count everything it had not parsed.
  const discardedBytes = sawFooter ? 0 : total - (position - reader.bytesRemaining());
  const built = summary.build(recovered);
  await writer.addMetadata({
    name: SUMMARY_METADATA_NAME,
    metadata: new Map([['summary', JSON.stringify(built)]]),
  });
  return { summary: built, discardedBytes };
}
