/**
 * Small adapters between node:fs and @mcap/core's reader and writer interfaces, and the two
 * durability steps every log write goes through: whole writes and synced folders.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { IWritable, McapTypes } from '@mcap/core';

/**
 * Random-access reads from an open file. Every read is checked against the file's size before
 * anything is allocated: the offsets and lengths come from the file's own indexes, and a damaged
 * index can name 2^64 - 1 bytes.
 */
export class FileReadable implements McapTypes.IReadable {
  private bytes: bigint | undefined;

  constructor(private readonly handle: FileHandle) {}

  async size(): Promise<bigint> {
    this.bytes ??= BigInt((await this.handle.stat()).size);
    return this.bytes;
  }

  async read(offset: bigint, size: bigint): Promise<Uint8Array> {
    const total = await this.size();
    if (offset < 0n || size < 0n || offset + size > total)
      throw new Error(
        `a read of ${size} bytes at byte ${offset} (a length or offset from the file itself) runs past its end (${total} bytes)`,
      );
    const buffer = new Uint8Array(Number(size));
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.byteLength, Number(offset));
    if (bytesRead < buffer.byteLength) throw new Error(`short read at ${offset}: file ends early`);
    return buffer;
  }
}

/** Appending writes to an open file, tracking the position the MCAP writer asks for. */
export class FileWritable implements IWritable {
  private offset = 0n;

  constructor(private readonly handle: FileHandle) {}

  async write(buffer: Uint8Array): Promise<void> {
    if (buffer.byteLength === 0) return;
    await writeFully(this.handle, buffer);
    this.offset += BigInt(buffer.byteLength);
  }

  position(): bigint {
    return this.offset;
  }
}

/**
 * Writes all of `bytes` at the file's current position. A write may take fewer bytes than it was
 * given (a signal, a full quota, a network file system); the rest must follow, not be dropped.
 */
export async function writeFully(handle: Pick<FileHandle, 'write'>, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.byteLength - done);
    if (bytesWritten <= 0)
      throw new Error(`write made no progress after ${done} of ${bytes.byteLength} bytes`);
    done += bytesWritten;
  }
}

/**
 * fsync of a folder: a file created in it, or renamed into it, is only sure to be there after a
 * power cut once the folder itself is synced. Windows cannot open folders for this; it does not
 * need it either (NTFS journals the name).
 */
export async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
