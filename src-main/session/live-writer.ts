/**
 * The file a session is recorded into while the run goes on: an MCAP file written front to back
 * without chunks (magic, header, schemas, channels, then messages), each record appended whole.
 * Records collect in memory and reach the disk on a timer (every 250 ms by default), so a crash
 * or kill loses at most one flush interval and leaves a file whose every complete record can be
 * read back. Closing it (or recovering it after a crash) rewrites it as a chunked, indexed MCAP:
 * see finalize.ts.
 *
 * Writes and syncs are separate queues. Each flush writes its bytes as soon as the write before
 * it has finished, whatever fdatasync is still in flight: a slow sync (a busy disk can take
 * seconds) must not hold written-but-unsynced bytes back in this process, where kill -9 would
 * lose them; once written they are in the kernel and survive the process. Syncs follow writes,
 * at most one in flight and one waiting. What is encoded but not yet written is capped: a disk
 * that cannot keep up is a recorder fault (reported once through onError, recording stops, what
 * was already queued is still written), not memory growing without bound under the control loop.
 */
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { McapRecordBuilder, type McapTypes } from '@mcap/core';
import { syncDir, writeFully } from './mcap-file';
import { every } from '../common/timers';

/** Period of writing the queued bytes to the file, s. */
export const DEFAULT_FLUSH_INTERVAL = 0.25;
/**
 * Bytes encoded but not yet written that make a recorder fault. A full run logs well under
 * 1 MB/s, so this is tens of seconds of a disk that takes nothing.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 32 * 1024 * 1024;

/** The log could not keep up with the run: recording stopped so memory stays bounded. */
export class RecorderFault extends Error {
  override name = 'RecorderFault';
}

export interface LiveMcapFileOptions {
  /** s */
  flushInterval?: number;
  maxQueuedBytes?: number;
  onError?: (err: Error) => void;
}

/** The part of a file handle the live log uses; tests give a slow one. */
export type LiveFileHandle = Pick<FileHandle, 'write' | 'datasync' | 'close'>;

export class LiveMcapFile {
  private builder = new McapRecordBuilder();
  /** The last write handed to the disk; each write starts when the one before it is done. */
  private writing: Promise<void> = Promise.resolve();
  private syncInFlight: Promise<void> | undefined;
  /** A sync that starts once the one in flight is done (at most one waits, shared by all). */
  private syncWaiting: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** The first write or sync error; recording stops at it and close() reports it. */
  private failure: Error | undefined;
  /** Set at the byte cap: recording stops, but what was queued is still written and closed. */
  private fault: RecorderFault | undefined;
  /** Bytes handed to writes that have not finished yet. */
  private inWrite = 0;
  /** Messages left out since the fault. */
  dropped = 0;
  bytesWritten = 0;
  bytesSynced = 0;

  private constructor(
    readonly file: string,
    private readonly handle: LiveFileHandle,
    flushInterval: number,
    private readonly maxQueuedBytes: number,
    private readonly onError: (err: Error) => void,
  ) {
    this.timer = every(flushInterval, () => void this.flush());
    // A recording alone must not keep the process alive.
    this.timer.unref();
  }

  /** Creates the file (never overwrites one), writes its magic and header and syncs its folder. */
  static async create(
    file: string,
    header: McapTypes.Header,
    options: LiveMcapFileOptions = {},
  ): Promise<LiveMcapFile> {
    const handle = await open(file, 'wx');
    const live = LiveMcapFile.onHandle(file, handle, header, options);
    await live.flush();
    // The new name (and a lock file made just before) must survive a power cut, not only the bytes.
    await syncDir(path.dirname(file));
    return live;
  }

  /** A live log on an open handle; the header is queued, not yet written. */
  static onHandle(
    file: string,
    handle: LiveFileHandle,
    header: McapTypes.Header,
    options: LiveMcapFileOptions = {},
  ): LiveMcapFile {
    const live = new LiveMcapFile(
      file,
      handle,
      options.flushInterval ?? DEFAULT_FLUSH_INTERVAL,
      options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
      options.onError ?? (() => undefined),
    );
    live.builder.writeMagic();
    live.builder.writeHeader(header);
    return live;
  }

  /** Bytes encoded but not yet written (buffered here or in a write under way). */
  get queuedBytes(): number {
    return this.builder.length + this.inWrite;
  }

  addSchema(schema: McapTypes.Schema): void {
    this.builder.writeSchema(schema);
  }

  addChannel(channel: McapTypes.Channel): void {
    this.builder.writeChannel(channel);
  }

  addMessage(message: McapTypes.Message): void {
    if (this.closed || this.failure) return;
    if (this.fault) {
      this.dropped++;
      return;
    }
    this.builder.writeMessage(message);
    if (this.queuedBytes > this.maxQueuedBytes) {
      this.fault = new RecorderFault(
        `recorder fault: ${this.queuedBytes} bytes wait for a disk that does not keep up ` +
          `(cap ${this.maxQueuedBytes}); recording stopped, the log ends here`,
      );
      this.onError(this.fault);
    }
  }

  /**
   * Writes what is buffered as soon as the write before it is done, then syncs. Resolves once
   * these bytes are written and a sync begun after them has finished.
   */
  flush(): Promise<void> {
    if (this.builder.length > 0 && !this.failure) {
      const bytes = this.builder.buffer.slice();
      this.builder.reset();
      this.inWrite += bytes.byteLength;
      this.writing = this.writing.then(async () => {
        try {
          if (this.failure) return;
          await writeFully(this.handle, bytes);
          this.bytesWritten += bytes.byteLength;
        } catch (err) {
          this.fail(err as Error);
        } finally {
          this.inWrite -= bytes.byteLength;
        }
      });
    }
    return this.writing.then(() => this.sync());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    await this.flush();
    this.closed = true;
    await this.handle.close();
    if (this.failure) throw this.failure;
  }

  /** A sync that starts after every byte written so far; shares one already waiting. */
  private sync(): Promise<void> {
    if (this.failure || this.bytesSynced >= this.bytesWritten) return Promise.resolve();
    // The sync in flight may have begun before the last write ended: one more must follow it.
    this.syncWaiting ??= (this.syncInFlight ?? Promise.resolve()).then(() => {
      this.syncWaiting = undefined;
      return this.startSync();
    });
    return this.syncWaiting;
  }

  private startSync(): Promise<void> {
    if (this.failure) return Promise.resolve();
    const upTo = this.bytesWritten;
    const sync = this.handle.datasync().then(
      () => {
        this.bytesSynced = Math.max(this.bytesSynced, upTo);
      },
      (err: Error) => this.fail(err),
    );
    const done: Promise<void> = sync.finally(() => {
      if (this.syncInFlight === done) this.syncInFlight = undefined;
    });
    this.syncInFlight = done;
    return sync;
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.onError(err);
  }
}
