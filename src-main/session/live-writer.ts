/**
 * The file a session is recorded into while the run goes on: an MCAP file written front to back
 * without chunks (magic, header, schemas, channels, then messages), each record appended whole.
 * Records collect in memory and reach the disk on a timer (every 250 ms by default, fdatasync'd),
 * so a crash or kill loses at most one flush interval and leaves a file whose every complete
 * record can be read back. Closing it (or recovering it after a crash) rewrites it as a chunked,
 * indexed MCAP: see finalize.ts.
 *
 * Writes go out asynchronously and one after the other; the control loop only pays for encoding
 * a record into the in-memory buffer.
 */
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { McapRecordBuilder, type McapTypes } from '@mcap/core';
import { syncDir, writeFully } from './mcap-file';

export const DEFAULT_FLUSH_INTERVAL_MS = 250;

export class LiveMcapFile {
  private builder = new McapRecordBuilder();
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** The first write error; recording stops at it and close() reports it. */
  private failure: Error | undefined;
  bytesWritten = 0;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    flushIntervalMs: number,
    private readonly onError: (err: Error) => void,
  ) {
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    // A recording alone must not keep the process alive.
    this.timer.unref();
  }

  /** Creates the file (never overwrites one), writes its magic and header and syncs its folder. */
  static async create(
    file: string,
    header: McapTypes.Header,
    options: { flushIntervalMs?: number; onError?: (err: Error) => void } = {},
  ): Promise<LiveMcapFile> {
    const handle = await open(file, 'wx');
    const live = new LiveMcapFile(
      file,
      handle,
      options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS,
      options.onError ?? (() => undefined),
    );
    live.builder.writeMagic();
    live.builder.writeHeader(header);
    await live.flush();
    // The new name (and a lock file made just before) must survive a power cut, not only the bytes.
    await syncDir(path.dirname(file));
    return live;
  }

  addSchema(schema: McapTypes.Schema): void {
    this.builder.writeSchema(schema);
  }

  addChannel(channel: McapTypes.Channel): void {
    this.builder.writeChannel(channel);
  }

  addMessage(message: McapTypes.Message): void {
    if (!this.closed && !this.failure) this.builder.writeMessage(message);
  }

  /** Hands what is buffered to the disk; resolves once it is written and synced. */
  flush(): Promise<void> {
    if (this.builder.length > 0 && !this.failure) {
      const bytes = this.builder.buffer.slice();
      this.builder.reset();
      this.writing = this.writing.then(async () => {
        if (this.failure) return;
        try {
          await writeFully(this.handle, bytes);
          await this.handle.datasync();
          this.bytesWritten += bytes.byteLength;
        } catch (err) {
          this.failure = err as Error;
          this.onError(this.failure);
        }
      });
    }
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    await this.flush();
    this.closed = true;
    await this.handle.close();
    if (this.failure) throw this.failure;
  }
}
