/** Small adapters between node:fs and @mcap/core's reader and writer interfaces. */
import type { FileHandle } from 'node:fs/promises';
import type { IWritable, McapTypes } from '@mcap/core';

/** Random-access reads from an open file. */
export class FileReadable implements McapTypes.IReadable {
  constructor(private readonly handle: FileHandle) {}

  async size(): Promise<bigint> {
    return BigInt((await this.handle.stat()).size);
  }

  async read(offset: bigint, size: bigint): Promise<Uint8Array> {
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
    await this.handle.write(buffer);
    this.offset += BigInt(buffer.byteLength);
  }

  position(): bigint {
    return this.offset;
  }
}
