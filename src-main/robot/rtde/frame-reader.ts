/**
 * Reassembles RTDE packets from TCP chunks: a chunk may hold several packets, or a packet may span
 * several chunks. Synchronous and allocation-light so that it can run inside the socket's 'data'
 * handler and never fall behind the controller.
 */
import { HEADER_SIZE, RtdeProtocolError } from './messages';

export interface Frame {
  type: number;
  /** A view into the received bytes: copy it if you keep it beyond the callback. */
  payload: Uint8Array;
}

export class FrameReader {
  private pending: Uint8Array = new Uint8Array(0);

  /** Feeds one chunk and calls `onFrame` for every packet it completes, in order. */
  push(chunk: Uint8Array, onFrame: (frame: Frame) => void): void {
    let buf = chunk;
    if (this.pending.length > 0) {
      buf = new Uint8Array(this.pending.length + chunk.length);
      buf.set(this.pending, 0);
      buf.set(chunk, this.pending.length);
    }
    let offset = 0;
    while (buf.length - offset >= HEADER_SIZE) {
      const size = (buf[offset]! << 8) | buf[offset + 1]!;
      if (size < HEADER_SIZE) throw new RtdeProtocolError(`packet size ${size} is smaller than its header`);
      if (buf.length - offset < size) break;
      onFrame({ type: buf[offset + 2]!, payload: buf.subarray(offset + HEADER_SIZE, offset + size) });
      offset += size;
    }
    // Keep the tail as a copy: the caller may reuse the chunk's memory.
    this.pending = offset === buf.length ? new Uint8Array(0) : buf.slice(offset);
  }

  /** Bytes of an incomplete packet waiting for more data. */
  get buffered(): number {
    return this.pending.length;
  }
}
