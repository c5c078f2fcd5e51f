/**
 * Reading the records of an MCAP file that may be damaged anywhere, not only at its end: a record
 * that does not parse, or does not end where another record begins, is skipped, and reading goes
 * on at the next byte where a record does parse and is followed by the start of another (MCAP
 * frames each record as opcode u8 + content length u64, so one bad length loses one record, not
 * the rest of the file). Every skipped range is reported with why. Chunks are opened (their CRC
 * checked) and their records read the same way; a chunk this reader cannot decompress is a lost
 * range.
 *
 * Logs recorded live hold Header, Schema, Channel and Message records; finalized logs add Chunk,
 * index, Statistics, Metadata, summary and Footer records, which the caller rebuilds.
 */
import { crc32 } from 'node:zlib';
import type { McapTypes } from '@mcap/core';

const MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a];
/** Opcode (u8) and content length (u64). */
const RECORD_HEADER = 9;
const OP = { header: 1, footer: 2, schema: 3, channel: 4, message: 5, chunk: 6, metadata: 12, max: 15 };

/** The records a recovery copies; every other kind is read past. */
export type ScannedRecord = Extract<
  McapTypes.TypedMcapRecord,
  { type: 'Header' | 'Schema' | 'Channel' | 'Message' | 'Footer' }
>;

export interface LostRange {
  /** Byte offsets in the file: [start, end). */
  start: number;
  end: number;
  reason: string;
}

/** A record that cannot be read where it stands; the scan resynchronises past it. */
class BadRecord extends Error {}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Little-endian reads inside [offset, end) of a record's content; past its end is a BadRecord. */
class Fields {
  constructor(
    private readonly view: DataView,
    private readonly bytes: Uint8Array,
    public at: number,
    private readonly end: number,
  ) {}

  private need(n: number): number {
    if (n < 0 || this.at + n > this.end) throw new BadRecord('a field runs past the end of its record');
    const at = this.at;
    this.at += n;
    return at;
  }

  u16(): number {
    return this.view.getUint16(this.need(2), true);
  }

  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }

  u64(): bigint {
    return this.view.getBigUint64(this.need(8), true);
  }

  string(): string {
    const n = this.u32();
    const at = this.need(n);
    try {
      return decoder.decode(this.bytes.subarray(at, at + n));
    } catch {
      throw new BadRecord('a text field is not UTF-8');
    }
  }

  bytesOf(n: number): Uint8Array {
    const at = this.need(n);
    return this.bytes.subarray(at, at + n);
  }

  rest(): Uint8Array {
    return this.bytesOf(this.end - this.at);
  }

  map(): Map<string, string> {
    const length = this.u32();
    const end = this.at + length;
    if (end > this.end) throw new BadRecord('a map runs past the end of its record');
    const out = new Map<string, string>();
    while (this.at < end) out.set(this.string(), this.string());
    if (this.at !== end) throw new BadRecord('a map does not end where its length says');
    return out;
  }
}

type Decoded =
  { kind: 'record'; record: ScannedRecord } | { kind: 'chunk'; records: Uint8Array } | { kind: 'other' };

/** The content of the record with `op` in [at, end); throws BadRecord when it does not parse. */
function decode(view: DataView, bytes: Uint8Array, op: number, at: number, end: number): Decoded {
  const f = new Fields(view, bytes, at, end);
  switch (op) {
    case OP.header:
      return { kind: 'record', record: { type: 'Header', profile: f.string(), library: f.string() } };
    case OP.footer:
      return {
        kind: 'record',
        record: { type: 'Footer', summaryStart: f.u64(), summaryOffsetStart: f.u64(), summaryCrc: f.u32() },
      };
    case OP.schema: {
      const id = f.u16();
      const name = f.string();
      const encoding = f.string();
      const data = f.bytesOf(f.u32()).slice();
      return { kind: 'record', record: { type: 'Schema', id, name, encoding, data } };
    }
    case OP.channel: {
      const id = f.u16();
      const schemaId = f.u16();
      const topic = f.string();
      const messageEncoding = f.string();
      const metadata = f.map();
      return { kind: 'record', record: { type: 'Channel', id, schemaId, topic, messageEncoding, metadata } };
    }
    case OP.message: {
      const channelId = f.u16();
      const sequence = f.u32();
      const logTime = f.u64();
      const publishTime = f.u64();
      const data = f.rest().slice();
      return { kind: 'record', record: { type: 'Message', channelId, sequence, logTime, publishTime, data } };
    }
    case OP.chunk: {
      f.u64(); // message start time
      f.u64(); // message end time
      const uncompressedSize = f.u64();
      const crc = f.u32();
      const compression = f.string();
      const length = f.u64();
      if (length > BigInt(end - f.at)) throw new BadRecord('chunk records run past the end of the chunk');
      const records = f.bytesOf(Number(length));
      if (compression !== '')
        throw new BadRecord(`chunk compressed with "${compression}", which this reader does not decompress`);
      if (BigInt(records.byteLength) !== uncompressedSize)
        throw new BadRecord('chunk size differs from the size its header states');
      if (crc !== 0 && crc32(records) !== crc) throw new BadRecord('chunk CRC mismatch');
      return { kind: 'chunk', records };
    }
    default:
      return { kind: 'other' };
  }
}

/** A record whose framing and content are sound at `at`, with where it ends; else why not. */
type Framed = { ok: true; op: number; end: number; decoded: Decoded } | { ok: false; reason: string };

function frame(view: DataView, bytes: Uint8Array, at: number): Framed {
  const size = bytes.byteLength;
  if (at + RECORD_HEADER > size)
    return { ok: false, reason: 'a record header cut off by the end of the file' };
  const op = bytes[at]!;
  if (op < 1 || op > OP.max) return { ok: false, reason: `no record starts here (opcode 0x${hex(op)})` };
  const length = view.getBigUint64(at + 1, true);
  if (length > BigInt(size - at - RECORD_HEADER))
    return { ok: false, reason: `record length ${length} runs past the end of the file` };
  const end = at + RECORD_HEADER + Number(length);
  try {
    return { ok: true, op, end, decoded: decode(view, bytes, op, at + RECORD_HEADER, end) };
  } catch (err) {
    if (err instanceof BadRecord) return { ok: false, reason: err.message };
    throw err;
  }
}

/**
 * Whether a record ending at `end` is followed by what may follow one: the end of the data, the
 * opcode of a record (whole or cut off by the end), the closing magic, or only zeros (the unused
 * tail of a file after a power cut). A length off by a few bytes ends inside a neighbour instead.
 */
function followedWell(bytes: Uint8Array, end: number): boolean {
  if (end === bytes.byteLength) return true;
  const op = bytes[end]!;
  if (op >= 1 && op <= OP.max) return true;
  if (MAGIC.every((b, i) => bytes[end + i] === b) && end + MAGIC.length === bytes.byteLength) return true;
  for (let i = end; i < bytes.byteLength; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Whether the bytes from `at` to the end are a crash's cut: a last record that never finished. */
function tornTail(view: DataView, bytes: Uint8Array, at: number): boolean {
  const size = bytes.byteLength;
  let zeros = true;
  for (let i = at; i < size && zeros; i++) zeros = bytes[i] === 0;
  if (zeros) return true;
  const op = bytes[at]!;
  if (op < 1 || op > OP.max) return false;
  return at + RECORD_HEADER > size || view.getBigUint64(at + 1, true) > BigInt(size - at - RECORD_HEADER);
}

export interface ScanReport {
  /** Byte ranges where no readable record stood (file offsets), in order. */
  lost: LostRange[];
  /** Bytes of a last record cut off by the end of the file (a crash), 0 when none. */
  tornTail: number;
}

/**
 * Calls `take` for every readable record of an MCAP file's bytes (magic first), in file order,
 * records of chunks in their place. Resolves with what could not be read.
 */
export async function scanRecords(
  bytes: Uint8Array,
  take: (record: ScannedRecord) => Promise<void>,
): Promise<ScanReport> {
  const report: ScanReport = { lost: [], tornTail: 0 };
  await scanRange(bytes, MAGIC.length, 0, take, report);
  return report;
}

async function scanRange(
  bytes: Uint8Array,
  start: number,
  /** File offset of bytes[0] (a chunk's records lie inside the file). */
  base: number,
  take: (record: ScannedRecord) => Promise<void>,
  report: ScanReport,
): Promise<void> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = bytes.byteLength;
  const inChunk = base !== 0;
  let at = start;
  while (at < size) {
    const f = frame(view, bytes, at);
    if (f.ok && followedWell(bytes, f.end)) {
      if (f.decoded.kind === 'record') {
        await take(f.decoded.record);
        // The footer is followed by the closing magic only.
        if (f.decoded.record.type === 'Footer' && !inChunk) return;
      } else if (f.decoded.kind === 'chunk') {
        const { records } = f.decoded;
        await scanRange(records, 0, base + records.byteOffset - bytes.byteOffset, take, report);
      }
      at = f.end;
      continue;
    }
    const reason = f.ok ? 'the record does not end where another begins (a wrong length)' : f.reason;
    const next = resync(view, bytes, at + 1);
    if (next === null && !inChunk && tornTail(view, bytes, at)) {
      report.tornTail = size - at;
      return;
    }
    const end = next ?? size;
    report.lost.push({ start: base + at, end: base + end, reason });
    at = end;
  }
}

/** The first offset from `from` where a sound record stands, followed by the start of another. */
function resync(view: DataView, bytes: Uint8Array, from: number): number | null {
  for (let at = from; at + RECORD_HEADER <= bytes.byteLength; at++) {
    const op = bytes[at]!;
    if (op < 1 || op > OP.max) continue;
    const f = frame(view, bytes, at);
    if (f.ok && f.end < bytes.byteLength && bytes[f.end]! >= 1 && bytes[f.end]! <= OP.max) return at;
    if (f.ok && f.end === bytes.byteLength) return at;
  }
  return null;
}

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/**
 * Why the records that fill `bytes` (each opcode, length, content, back to back: a chunk, or a
 * chunk's message indexes) cannot be read, or null when they can.
 */
export function recordsProblem(bytes: Uint8Array): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.byteLength;) {
    const f = frame(view, bytes, at);
    if (!f.ok) return f.reason;
    at = f.end;
  }
  return null;
}
