/**
 * Reading session logs back: open one (with a clear error for an empty, foreign or cut-short
 * file), read its summary, read its channels in log-time order with every message validated
 * against its channel's schema (older forms of a channel upgraded: legacy-messages.ts), and list
 * a folder of sessions.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { formatIssues } from '#contract/console-api';
import { channels, isTopic, withAbsentNulls, type MessageOf, type Topic } from './channels';
import { checkMcapMagic } from './finalize';
import { inSeconds, upgradeLegacyMessage, wallSecondsOf } from './legacy-messages';
import { FileReadable } from './mcap-file';
import { SessionLogError } from './session-log-error';
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
      throw new SessionLogError(
        `${file}: the log is cut short or damaged (${(err as Error).message}); ` +
          `recover it with "parapush log recover ${file}"`,
      );
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
    for await (const m of this.reader.readMetadata({ name: SUMMARY_METADATA_NAME })) {
      const parsed = sessionSummarySchema.safeParse(JSON.parse(m.metadata.get('summary') ?? 'null'));
      if (!parsed.success) continue;
      const { startedAt } = parsed.data;
      // An older log stored its start in ms.
      return { ...parsed.data, startedAt: startedAt === null ? null : wallSecondsOf(startedAt) };
    }
    const builder = new SummaryBuilder();
    for await (const m of this.reader.readMessages()) {
      const channel = this.reader.channelsById.get(m.channelId);
      if (channel) builder.add(channel.topic, m.logTime, m.data);
    }
    return builder.build(false);
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
    for await (const m of this.reader.readMessages({ topics: wanted, validateCrcs: true })) {
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
      json = withAbsentNulls(topic, inSeconds(topic, json));
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

/** Every .mcap file of a folder, newest first, with its summary or why it has none. */
export async function listSessions(dir: string): Promise<SessionListing[]> {
  const names = await sessionFileNames(dir);
  const out: SessionListing[] = [];
  for (const name of names.sort().reverse()) {
    const file = path.join(dir, name);
    const bytes = (await stat(file)).size;
    if (await isBeingRecorded(file)) {
      out.push({ file: name, state: 'recording', summary: null, problem: null, bytes });
      continue;
    }
    try {
      const log = await SessionLog.open(file);
      try {
        out.push({ file: name, state: 'complete', summary: await log.summary(), problem: null, bytes });
      } finally {
        await log.close();
      }
    } catch (err) {
      const problem = (err as Error).message;
      const state = /cut short/.test(problem) ? 'needs-recovery' : 'unreadable';
      out.push({ file: name, state, summary: null, problem, bytes });
    }
  }
  return out;
}
