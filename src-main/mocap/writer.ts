/** A growable little-endian writer: the encoding half of ByteReader. */

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialSize = 512) {
    this.buf = new Uint8Array(initialSize);
    this.view = new DataView(this.buf.buffer);
  }

  get offset(): number {
    return this.pos;
  }

  private room(n: number): number {
    if (this.pos + n > this.buf.byteLength) {
      const next = new Uint8Array(Math.max(this.buf.byteLength * 2, this.pos + n));
      next.set(this.buf.subarray(0, this.pos));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(v: number): this {
    this.view.setUint8(this.room(1), v);
    return this;
  }

  i16(v: number): this {
    this.view.setInt16(this.room(2), v, true);
    return this;
  }

  u16(v: number): this {
    this.view.setUint16(this.room(2), v, true);
    return this;
  }

  i32(v: number): this {
    this.view.setInt32(this.room(4), v, true);
    return this;
  }

  u32(v: number): this {
    this.view.setUint32(this.room(4), v, true);
    return this;
  }

  u64(v: bigint): this {
    this.view.setBigUint64(this.room(8), v, true);
    return this;
  }

  f32(v: number): this {
    this.view.setFloat32(this.room(4), v, true);
    return this;
  }

  f64(v: number): this {
    this.view.setFloat64(this.room(8), v, true);
    return this;
  }

  floats(vs: readonly number[]): this {
    for (const v of vs) this.f32(v);
    return this;
  }

  bytes(b: Uint8Array): this {
    this.buf.set(b, this.room(b.byteLength));
    return this;
  }

  cstring(s: string): this {
    const at = this.room(s.length + 1);
    for (let i = 0; i < s.length; i++) this.buf[at + i] = s.charCodeAt(i) & 0xff;
    this.buf[at + s.length] = 0;
    return this;
  }

  /** A NUL-padded fixed-size field; text longer than size - 1 is cut so a NUL always ends it. */
  fixedString(s: string, size: number): this {
    const at = this.room(size);
    this.buf.fill(0, at, at + size);
    const n = Math.min(s.length, size - 1);
    for (let i = 0; i < n; i++) this.buf[at + i] = s.charCodeAt(i) & 0xff;
    return this;
  }

  /** Reserves an int32 to be filled later (section byte sizes in NatNet 4.1+). */
  placeholderI32(): number {
    return this.room(4);
  }

  patchI32(at: number, v: number): void {
    this.view.setInt32(at, v, true);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
