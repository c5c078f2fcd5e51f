/**
 * A bounds-checked little-endian reader over one packet. Every read checks the remaining length
 * first and throws a DecodeError (never a RangeError from deep inside Node) so the packet decoder
 * can turn any malformed packet into one counted, reported failure.
 */

export class DecodeError extends Error {
  override name = 'DecodeError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} (at byte ${offset})`);
  }
}

export class ByteReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.bytes.byteLength - this.pos;
  }

  private need(n: number, what: string): number {
    if (n > this.remaining)
      throw new DecodeError(`${what}: need ${n} bytes, ${this.remaining} left`, this.pos);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(what = 'uint8'): number {
    return this.view.getUint8(this.need(1, what));
  }

  i16(what = 'int16'): number {
    return this.view.getInt16(this.need(2, what), true);
  }

  u16(what = 'uint16'): number {
    return this.view.getUint16(this.need(2, what), true);
  }

  i32(what = 'int32'): number {
    return this.view.getInt32(this.need(4, what), true);
  }

  u32(what = 'uint32'): number {
    return this.view.getUint32(this.need(4, what), true);
  }

  u64(what = 'uint64'): bigint {
    return this.view.getBigUint64(this.need(8, what), true);
  }

  f32(what = 'float32'): number {
    return this.view.getFloat32(this.need(4, what), true);
  }

  f64(what = 'float64'): number {
    return this.view.getFloat64(this.need(8, what), true);
  }

  vec3(what = 'vec3'): [number, number, number] {
    return [this.f32(what), this.f32(what), this.f32(what)];
  }

  quat(what = 'quaternion'): [number, number, number, number] {
    return [this.f32(what), this.f32(what), this.f32(what), this.f32(what)];
  }

  bytesOf(n: number, what = 'bytes'): Uint8Array {
    const at = this.need(n, what);
    return this.bytes.subarray(at, at + n);
  }

  skip(n: number, what = 'skip'): void {
    this.need(n, what);
  }

  /** A NUL-terminated string; the terminator must lie inside the packet. */
  cstring(what = 'string'): string {
    const end = this.bytes.indexOf(0, this.pos);
    if (end < 0) throw new DecodeError(`${what}: no NUL terminator`, this.pos);
    const s = latin1(this.bytes.subarray(this.pos, end));
    this.pos = end + 1;
    return s;
  }

  /** A fixed-size NUL-padded string field: the text stops at the first NUL. */
  fixedString(size: number, what = 'string'): string {
    const field = this.bytesOf(size, what);
    const end = field.indexOf(0);
    return latin1(end < 0 ? field : field.subarray(0, end));
  }

  /**
   * A count that precedes `minItemBytes`-sized (or larger) items: rejects negative counts and
   * counts that could not fit in what is left, so a corrupted count never drives a long loop.
   */
  count(minItemBytes: number, what: string): number {
    const at = this.pos;
    const n = this.i32(`${what} count`);
    if (n < 0) throw new DecodeError(`${what} count is negative (${n})`, at);
    if (minItemBytes > 0 && n * minItemBytes > this.remaining) {
      throw new DecodeError(`${what} count ${n} does not fit in ${this.remaining} bytes`, at);
    }
    return n;
  }

  expectEnd(what: string): void {
    if (this.remaining !== 0)
      throw new DecodeError(`${what}: ${this.remaining} unexpected trailing bytes`, this.pos);
  }
}

function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
}
