/** Builds small pcap / pcapng captures of UDP datagrams (Ethernet + IPv4), for the capture tests. */

export interface Datagram {
  time: number;
  srcPort: number;
  dstPort: number;
  payload: Uint8Array;
}

function ipv4Packets(d: Datagram, id: number, mtu: number): Uint8Array[] {
  const udp = new Uint8Array(8 + d.payload.length);
  const uv = new DataView(udp.buffer);
  uv.setUint16(0, d.srcPort);
  uv.setUint16(2, d.dstPort);
  uv.setUint16(4, udp.length);
  udp.set(d.payload, 8);
  // Fragment the UDP datagram into IP payloads of at most mtu - 20 bytes (multiple of 8).
  const chunk = Math.floor((mtu - 20) / 8) * 8;
  const out: Uint8Array[] = [];
  for (let off = 0; off < udp.length; off += chunk) {
    const part = udp.subarray(off, Math.min(udp.length, off + chunk));
    const more = off + chunk < udp.length;
    const frame = new Uint8Array(14 + 20 + part.length);
    const v = new DataView(frame.buffer);
    v.setUint16(12, 0x0800);
    frame[14] = 0x45;
    v.setUint16(16, 20 + part.length);
    v.setUint16(18, id);
    v.setUint16(20, (more ? 0x2000 : 0) | (off / 8));
    frame[22] = 1;
    frame[23] = 17;
    frame.set([192, 168, 0, 2], 26);
    frame.set([239, 255, 42, 99], 30);
    frame.set(part, 34);
    out.push(frame);
  }
  return out;
}

export function pcap(datagrams: Datagram[], mtu = 1500): Uint8Array {
  const parts: Uint8Array[] = [];
  const header = new Uint8Array(24);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, 0xa1b2c3d4, true);
  hv.setUint16(4, 2, true);
  hv.setUint16(6, 4, true);
  hv.setUint32(16, 65535, true);
  hv.setUint32(20, 1, true);
  parts.push(header);
  datagrams.forEach((d, i) => {
    for (const frame of ipv4Packets(d, 100 + i, mtu)) {
      const rec = new Uint8Array(16);
      const rv = new DataView(rec.buffer);
      rv.setUint32(0, Math.floor(d.time), true);
      rv.setUint32(4, Math.round((d.time % 1) * 1e6), true);
      rv.setUint32(8, frame.length, true);
      rv.setUint32(12, frame.length, true);
      parts.push(rec, frame);
    }
  });
  return Buffer.concat(parts);
}

function block(type: number, body: Uint8Array, little: boolean): Uint8Array {
  const padded = Math.ceil(body.length / 4) * 4;
  const b = new Uint8Array(12 + padded);
  const v = new DataView(b.buffer);
  v.setUint32(0, type, little);
  v.setUint32(4, b.length, little);
  b.set(body, 8);
  v.setUint32(b.length - 4, b.length, little);
  return b;
}

/** pcapng with nanosecond timestamps (if_tsresol = 9), in either byte order. */
export function pcapng(datagrams: Datagram[], little = true, mtu = 1500): Uint8Array {
  const shb = new Uint8Array(16);
  const sv = new DataView(shb.buffer);
  sv.setUint32(0, 0x1a2b3c4d, little);
  sv.setUint16(4, 1, little);
  sv.setBigInt64(8, -1n, little);
  const idb = new Uint8Array(8 + 8 + 4);
  const iv = new DataView(idb.buffer);
  iv.setUint16(0, 1, little);
  iv.setUint32(4, 65535, little);
  iv.setUint16(8, 9, little);
  iv.setUint16(10, 1, little);
  idb[12] = 9;
  const parts = [block(0x0a0d0d0a, shb, little), block(1, idb, little)];
  datagrams.forEach((d, i) => {
    for (const frame of ipv4Packets(d, 200 + i, mtu)) {
      const body = new Uint8Array(20 + frame.length);
      const bv = new DataView(body.buffer);
      const ns = BigInt(Math.round(d.time * 1e9));
      bv.setUint32(4, Number(ns >> 32n), little);
      bv.setUint32(8, Number(ns & 0xffffffffn), little);
      bv.setUint32(12, frame.length, little);
      bv.setUint32(16, frame.length, little);
      body.set(frame, 20);
      parts.push(block(6, body, little));
    }
  });
  return Buffer.concat(parts);
}
