/**
 * Network captures (libpcap .pcap and .pcapng, either byte order) -> UDP datagrams. Handles the
 * link layers Wireshark and tcpdump produce for Motive traffic (Ethernet with VLAN tags, Linux
 * cooked v1/v2, BSD loopback, raw IP), IPv4 fragments (NatNet frames can exceed the MTU and are
 * reassembled) and IPv6 without extension headers. Malformed records are counted and skipped.
 */
import { ByteReader, DecodeError } from './reader';

export interface CaptureRecord {
  /** Seconds since the Unix epoch. */
  time: number;
  linkType: number;
  data: Uint8Array;
}

export interface UdpDatagram {
  time: number;
  srcAddress: string;
  srcPort: number;
  dstAddress: string;
  dstPort: number;
  payload: Uint8Array;
}

export class CaptureFormatError extends Error {
  override name = 'CaptureFormatError';
}

const LINK = {
  NULL: 0,
  ETHERNET: 1,
  RAW: 101,
  LOOP: 108,
  LINUX_SLL: 113,
  IPV4: 228,
  IPV6: 229,
  LINUX_SLL2: 276,
} as const;

/** A reader in the capture's own byte order. */
class Endian {
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    public little: boolean,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u16(at: number): number {
    return this.view.getUint16(at, this.little);
  }
  u32(at: number): number {
    return this.view.getUint32(at, this.little);
  }
}

export function isPcapng(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength >= 4 && bytes[0] === 0x0a && bytes[1] === 0x0d && bytes[2] === 0x0d && bytes[3] === 0x0a
  );
}

export function readCapture(bytes: Uint8Array): { records: CaptureRecord[]; skipped: number } {
  if (isPcapng(bytes)) return readPcapng(bytes);
  return readPcap(bytes);
}

function readPcap(bytes: Uint8Array): { records: CaptureRecord[]; skipped: number } {
  if (bytes.byteLength < 24) throw new CaptureFormatError('too short for a pcap header');
  const magicLe = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  let little: boolean;
  let nano: boolean;
  if (magicLe === 0xa1b2c3d4 || magicLe === 0xa1b23c4d) [little, nano] = [true, magicLe === 0xa1b23c4d];
  else if (magicLe === 0xd4c3b2a1 || magicLe === 0x4d3cb2a1) [little, nano] = [false, magicLe === 0x4d3cb2a1];
  else throw new CaptureFormatError('not a pcap or pcapng file (unknown magic number)');
  const e = new Endian(bytes, little);
  const linkType = e.u32(20) & 0x0fffffff;
  const records: CaptureRecord[] = [];
  let skipped = 0;
  let at = 24;
  while (at + 16 <= bytes.byteLength) {
    const sec = e.u32(at);
    const frac = e.u32(at + 4);
    const incl = e.u32(at + 8);
    at += 16;
    if (incl > bytes.byteLength - at) {
      skipped++;
      break;
    }
    records.push({ time: sec + frac / (nano ? 1e9 : 1e6), linkType, data: bytes.subarray(at, at + incl) });
    at += incl;
  }
  return { records, skipped };
}

interface Interface {
  linkType: number;
  /** Seconds per timestamp unit. */
  resolution: number;
}

function readPcapng(bytes: Uint8Array): { records: CaptureRecord[]; skipped: number } {
  const records: CaptureRecord[] = [];
  let skipped = 0;
  let e = new Endian(bytes, true);
  let interfaces: Interface[] = [];
  let at = 0;
  while (at + 12 <= bytes.byteLength) {
    if (isPcapng(bytes.subarray(at, at + 4))) {
      // Section header: the byte-order magic sets the endianness for the whole section.
      const bom = new DataView(bytes.buffer, bytes.byteOffset + at + 8, 4).getUint32(0, true);
      if (bom === 0x1a2b3c4d) e = new Endian(bytes, true);
      else if (bom === 0x4d3c2b1a) e = new Endian(bytes, false);
      else throw new CaptureFormatError('pcapng section header has a bad byte-order magic');
      interfaces = [];
    }
    const type = e.u32(at);
    const length = e.u32(at + 4);
    if (length < 12 || length % 4 !== 0 || length > bytes.byteLength - at) {
      skipped++;
      break;
    }
    const body = at + 8;
    const bodyEnd = at + length - 4;
    try {
      if (type === 1) interfaces.push(readInterface(e, body, bodyEnd));
      else if (type === 6 || type === 2) {
        // Enhanced packet (6) or the obsolete packet block (2): interface id (u32, or u16 + drops u16), time, lengths.
        const iface = interfaces[type === 6 ? e.u32(body) : e.u16(body)];
        const captured = e.u32(body + 12);
        if (!iface || body + 20 + captured > bodyEnd) throw new DecodeError('bad packet block', at);
        const ts = e.u32(body + 4) * 2 ** 32 + e.u32(body + 8);
        records.push({
          time: ts * iface.resolution,
          linkType: iface.linkType,
          data: bytes.subarray(body + 20, body + 20 + captured),
        });
      } else if (type === 3) {
        // Simple packet: no timestamp, interface 0.
        const iface = interfaces[0];
        const original = e.u32(body);
        const captured = Math.min(original, bodyEnd - body - 4);
        if (!iface) throw new DecodeError('simple packet before any interface', at);
        records.push({
          time: 0,
          linkType: iface.linkType,
          data: bytes.subarray(body + 4, body + 4 + captured),
        });
      }
    } catch {
      skipped++;
    }
    at += length;
  }
  return { records, skipped };
}

function readInterface(e: Endian, body: number, end: number): Interface {
  const linkType = e.u16(body);
  let resolution = 1e-6;
  let at = body + 8;
  while (at + 4 <= end) {
    const code = e.u16(at);
    const len = e.u16(at + 2);
    if (code === 0) break;
    if (code === 9 && len >= 1) {
      // if_tsresol: high bit set means a power of 2, else a power of 10.
      const v = e.bytes[at + 4]!;
      resolution = v & 0x80 ? 2 ** -(v & 0x7f) : 10 ** -v;
    }
    at += 4 + Math.ceil(len / 4) * 4;
  }
  return { linkType, resolution };
}

/** Offset of the IP header inside a link-layer frame, or -1 for a frame that carries no IP. */
function ipOffset(linkType: number, d: Uint8Array): number {
  const be16 = (at: number): number => (d[at]! << 8) | d[at + 1]!;
  switch (linkType) {
    case LINK.ETHERNET: {
      let at = 12;
      let type = be16(at);
      // 802.1Q / 802.1ad VLAN tags.
      while ((type === 0x8100 || type === 0x88a8) && at + 6 <= d.length) {
        at += 4;
        type = be16(at);
      }
      return type === 0x0800 || type === 0x86dd ? at + 2 : -1;
    }
    case LINK.NULL:
    case LINK.LOOP:
      return 4;
    case LINK.RAW:
    case LINK.IPV4:
    case LINK.IPV6:
      return 0;
    case LINK.LINUX_SLL:
      return be16(14) === 0x0800 || be16(14) === 0x86dd ? 16 : -1;
    case LINK.LINUX_SLL2:
      return be16(0) === 0x0800 || be16(0) === 0x86dd ? 20 : -1;
    default:
      return -1;
  }
}

function ipv4(d: Uint8Array, at: number): string {
  return `${d[at]}.${d[at + 1]}.${d[at + 2]}.${d[at + 3]}`;
}

function ipv6(d: Uint8Array, at: number): string {
  const parts: string[] = [];
  for (let i = 0; i < 16; i += 2) parts.push(((d[at + i]! << 8) | d[at + i + 1]!).toString(16));
  return parts.join(':');
}

interface Fragments {
  pieces: { offset: number; data: Uint8Array }[];
  total: number;
  time: number;
}

/**
 * UDP datagrams of a capture, in capture order (a fragmented datagram appears when its last
 * fragment arrives). `skipped` counts records that could not be read as IP/UDP.
 */
export function udpDatagrams(records: readonly CaptureRecord[]): {
  datagrams: UdpDatagram[];
  skipped: number;
} {
  const datagrams: UdpDatagram[] = [];
  const partial = new Map<string, Fragments>();
  let skipped = 0;
  for (const rec of records) {
    try {
      const d = rec.data;
      const ip = ipOffset(rec.linkType, d);
      if (ip < 0) continue;
      const r = new ByteReader(d.subarray(ip));
      const version = r.u8('ip version') >> 4;
      if (version === 4) {
        const ihl = (d[ip]! & 0x0f) * 4;
        const total = (d[ip + 2]! << 8) | d[ip + 3]!;
        const id = (d[ip + 4]! << 8) | d[ip + 5]!;
        const flagsOffset = (d[ip + 6]! << 8) | d[ip + 7]!;
        const protocol = d[ip + 9];
        if (protocol !== 17 || ihl < 20 || total < ihl || ip + total > d.length) {
          if (protocol === 17) skipped++;
          continue;
        }
        const src = ipv4(d, ip + 12);
        const dst = ipv4(d, ip + 16);
        const body = d.subarray(ip + ihl, ip + total);
        const more = (flagsOffset & 0x2000) !== 0;
        const fragOffset = (flagsOffset & 0x1fff) * 8;
        if (!more && fragOffset === 0) {
          const u = udp(body, src, dst, rec.time);
          if (u) datagrams.push(u);
          else skipped++;
          continue;
        }
        const key = `${src}>${dst}#${id}`;
        const f = partial.get(key) ?? { pieces: [], total: -1, time: rec.time };
        f.pieces.push({ offset: fragOffset, data: body });
        if (!more) f.total = fragOffset + body.length;
        f.time = rec.time;
        partial.set(key, f);
        const have = f.pieces.reduce((n, p) => n + p.data.length, 0);
        if (f.total >= 0 && have >= f.total) {
          partial.delete(key);
          const whole = new Uint8Array(f.total);
          for (const p of f.pieces) if (p.offset + p.data.length <= f.total) whole.set(p.data, p.offset);
          const u = udp(whole, src, dst, f.time);
          if (u) datagrams.push(u);
          else skipped++;
        }
      } else if (version === 6) {
        if (d.length < ip + 40 || d[ip + 6] !== 17) continue;
        const len = (d[ip + 4]! << 8) | d[ip + 5]!;
        const u = udp(d.subarray(ip + 40, ip + 40 + len), ipv6(d, ip + 8), ipv6(d, ip + 24), rec.time);
        if (u) datagrams.push(u);
        else skipped++;
      }
    } catch {
      skipped++;
    }
  }
  skipped += partial.size;
  return { datagrams, skipped };
}

function udp(b: Uint8Array, src: string, dst: string, time: number): UdpDatagram | undefined {
  if (b.length < 8) return undefined;
  const length = (b[4]! << 8) | b[5]!;
  if (length < 8 || length > b.length) return undefined;
  return {
    time,
    srcAddress: src,
    srcPort: (b[0]! << 8) | b[1]!,
    dstAddress: dst,
    dstPort: (b[2]! << 8) | b[3]!,
    payload: b.subarray(8, length),
  };
}
