/**
 * Reading session logs back: open one (with a clear error for an empty, foreign, cut-short or
 * damaged file), read its summary, read its channels in log-time order with every message
 * validated against its channel's schema (older forms of a channel upgraded: legacy-messages.ts),
 * check its chunks, and list a folder of sessions. Whatever the MCAP library reports about a
 * damaged file reaches the caller as one SessionLogError line naming the file and what to do.
 */
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { formatIssues } from '#contract/console-api';
import { channels, isTopic, withAbsentNulls, type MessageOf, type Topic } from './channels';
import { checkMcapMagic } from './finalize';
import { fromLegacyUnits, upgradeLegacyMessage, wallSecondsOf } from './legacy-messages';
import { FileReadable } from './mcap-file';
import { ListingCache, type ListingEntry } from './listing-cache';
import { recordsProblem, scanRecords } from './record-scan';
import { damagedLog, SessionLogError } from './session-log-error';
import {
  SUMMARY_METADATA_NAME,
  sessionSummarySchema,
  SummaryBuilder,
  type SessionSummary,
} from './session-summary';
import { isBeingRecorded } from './session-lock';
import { sessionFileNames } from './sessions-dir';

export { SessionLogError } from './session-log-error';

export interface LoggedMessage<T extends Topic = Topic> {
  topic: T;
  /** MCAP log time, ns (wall clock at the start + monotonic time since). */
  logTime: bigint;
  message: MessageOf<T>;
}

const decoder = new TextDecoder();

export class SessionLog {
  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly reader: McapIndexedReader,
  ) {}

  static async open(file: string): Promise<SessionLog> {
    await checkMcapMagic(file);
    const handle = await open(file, 'r');
    let reader: McapIndexedReader;
    try {
      reader = await McapIndexedReader.Initialize({ readable: new FileReadable(handle) });
    } catch (err) {
      await handle.close();
      throw damagedLog(file, (err as Error).message);
    }
    const topicsInFile = [...reader.channelsById.values()].map((c) => c.topic);
    if (!topicsInFile.includes('/session/info')) {
      await handle.close();
      throw new SessionLogError(
        `${file}: an MCAP file, but not a Parapush session log (no /session/info channel; ` +
          `channels: ${topicsInFile.join(', ') || 'none'})`,
      );
    }
    return new SessionLog(file, handle, reader);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** The stored summary; computed from the messages for a log finalized without one. */
  async summary(): Promise<SessionSummary> {
    const stored = await this.damageAsError(async () => {
      for await (const m of this.reader.readMetadata({ name: SUMMARY_METADATA_NAME })) return m;
      return undefined;
    });
    if (stored === undefined) return this.summaryFromMessages();
    let json: unknown;
    try {
      json = JSON.parse(stored.metadata.get('summary') ?? 'null');
    } catch (err) {
      throw damagedLog(this.file, `its stored summary is not JSON: ${(err as Error).message}`);
    }
    const parsed = sessionSummarySchema.safeParse(json);
    if (!parsed.success) return this.summaryFromMessages();
    const { startedAt } = parsed.data;
    // An older log stored its start in ms.
    return { ...parsed.data, startedAt: startedAt === null ? null : wallSecondsOf(startedAt) };
  }

  /**
   * The summary of a log without a stored one, from its messages in file order (the order they
   * were logged in): one sequential read, seconds faster on a big log than the indexed reader's
   * merge of chunks by time.
   */
  private async summaryFromMessages(): Promise<SessionSummary> {
    const builder = new SummaryBuilder();
    const topics = new Map<number, string>();
    const scan = await scanRecords(await readFile(this.file), async (r) => {
      if (r.type === 'Channel') topics.set(r.id, r.topic);
      else if (r.type === 'Message') {
        const topic = topics.get(r.channelId);
        if (topic) builder.add(topic, r.logTime, r.data);
      }
    });
    const bad = scan.lost[0];
    if (bad) throw damagedLog(this.file, `bytes ${bad.start}-${bad.end}: ${bad.reason}`);
    return builder.build(false);
  }

  /**
   * Reads every chunk the index names, and its message indexes, and checks them (within the
   * file, each record framed, a compression this reader knows, the chunk's CRC): damage shows here, at once, instead of partway through a playback.
   */
  async verify(): Promise<void> {
    const readable = new FileReadable(this.handle);
    for (const chunk of this.reader.chunkIndexes) {
      // The chunk and its message indexes, which follow it.
      const bytes = await this.damageAsError(() =>
        readable.read(chunk.chunkStartOffset, chunk.chunkLength + chunk.messageIndexLength),
      );
      const problem = recordsProblem(bytes);
      if (problem) throw damagedLog(this.file, `the chunk at byte ${chunk.chunkStartOffset}: ${problem}`);
    }
  }

  /** Runs a read of the file; what the library throws for a damaged file becomes one clear line. */
  private async damageAsError<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof SessionLogError) throw err;
      throw damagedLog(this.file, (err as Error).message);
    }
  }

  /** Topics in the file with their message counts (from the MCAP statistics). */
  channelCounts(): { topic: string; messages: number }[] {
    const counts = this.reader.statistics?.channelMessageCounts;
    return [...this.reader.channelsById.values()]
      .map((c) => ({ topic: c.topic, messages: Number(counts?.get(c.id) ?? 0n) }))
      .sort((a, b) => a.topic.localeCompare(b.topic));
  }

  /** Messages of the given topics (all when omitted) in log-time order, each validated. */
  async *messages<T extends Topic>(only?: readonly T[]): AsyncGenerator<LoggedMessage<T>> {
    const wanted = only ? [...only] : undefined;
    const read = this.reader.readMessages({ topics: wanted, validateCrcs: true });
    for (;;) {
      const next = await this.damageAsError(() => read.next());
      if (next.done) return;
      const m = next.value;
      const topic = this.reader.channelsById.get(m.channelId)?.topic;
      if (!topic || !isTopic(topic)) continue;
      let json: unknown;
      try {
        json = JSON.parse(decoder.decode(m.data));
      } catch (err) {
        throw new SessionLogError(
          `${this.file}: ${topic} message ${m.sequence} is not JSON: ${(err as Error).message}`,
        );
      }
      // A log from before times were in seconds: its ms fields converted first.
      json = withAbsentNulls(topic, fromLegacyUnits(topic, json));
      const parsed = channels[topic].safeParse(json);
      // A log from before states were named: its messages are turned into today's.
      const message = parsed.success ? (parsed.data as MessageOf<T>) : upgradeLegacyMessage(topic as T, json);
      if (message === undefined)
        throw new SessionLogError(
          `${this.file}: ${topic} message ${m.sequence}: ${formatIssues(parsed.error!)}`,
        );
      yield { topic: topic as T, logTime: m.logTime, message };
    }
  }
}

export type SessionState = 'complete' | 'needs-recovery' | 'recording' | 'unreadable';

export interface SessionListing {
  /** File name inside the sessions folder. */
  file: string;
  state: SessionState;
  /** Null unless the log is complete. */
  summary: SessionSummary | null;
  /** Why the log cannot be listed, for unreadable ones. */
  problem: string | null;
  bytes: number;
}

/**
 * Every .mcap file of a folder, newest first, with its summary or why it has none. Each log is
 * opened, summarised and its chunks checked once; the result is kept in the folder's listing
 * cache (listing-cache.ts) until the file changes.
 */
export async function listSessions(dir: string): Promise<SessionListing[]> {
  const names = await sessionFileNames(dir);
  const cache = await ListingCache.load(dir);
  const out: SessionListing[] = [];
  for (const name of names.sort().reverse()) {
    const file = path.join(dir, name);
    const stats = await stat(file);
    const bytes = stats.size;
    const modified = stats.mtimeMs / 1000;
    if (await isBeingRecorded(file)) {
      out.push({ file: name, state: 'recording', summary: null, problem: null, bytes });
      continue;
    }
    let entry = cache.get(name, { size: bytes, modified });
    if (!entry) {
      entry = { size: bytes, modified, ...(await examine(file)) };
      cache.set(name, entry);
    }
    out.push({ file: name, state: entry.state, summary: entry.summary, problem: entry.problem, bytes });
  }
  await cache.save(names);
  return out;
}

/** A log's listing: opened, summarised, its chunks checked. */
async function examine(file: string): Promise<Omit<ListingEntry, 'size' | 'modified'>> {
  try {
    const log = await SessionLog.open(file);
    try {
      const summary = await log.summary();
      await log.verify();
      return { state: 'complete', summary, problem: null };
    } finally {
      await log.close();
    }
  } catch (err) {
    const problem = (err as Error).message;
    const state = err instanceof SessionLogError && err.recoverable ? 'needs-recovery' : 'unreadable';
    return { state, summary: null, problem };
  }
}
