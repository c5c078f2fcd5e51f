/**
 * A recorded NatNet stream: the packets of a pcap/pcapng capture (UDP on the NatNet ports) or
 * of a folder of packet files (one whole NatNet packet each, in file-name order).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_COMMAND_PORT, DEFAULT_DATA_PORT } from './message-ids';
import { readCapture, udpDatagrams } from './pcap';

export interface CapturedPacket {
  /** Capture time (s since the epoch), undefined for packet files. */
  time: number | undefined;
  bytes: Uint8Array;
  /** Where it came from: "file.bin", or "192.168.0.2:1511 -> 239.255.42.99:1511". */
  source: string;
}

export interface LoadedCapture {
  packets: CapturedPacket[];
  /** Records or files that could not be read as NatNet-carrying UDP. */
  skipped: number;
}

export interface LoadCaptureOptions {
  /** UDP ports that carry NatNet (either end); default the command and data ports. */
  ports?: readonly number[];
}

export function loadCapture(file: string, options: LoadCaptureOptions = {}): LoadedCapture {
  if (statSync(file).isDirectory()) return loadPacketFolder(file);
  const bytes = new Uint8Array(readFileSync(file));
  const ports = new Set(options.ports ?? [DEFAULT_COMMAND_PORT, DEFAULT_DATA_PORT]);
  const { records, skipped } = readCapture(bytes);
  const { datagrams, skipped: badUdp } = udpDatagrams(records);
  const packets = datagrams
    .filter((d) => ports.has(d.srcPort) || ports.has(d.dstPort))
    .map((d) => ({
      time: d.time,
      bytes: d.payload,
      source: `${d.srcAddress}:${d.srcPort} -> ${d.dstAddress}:${d.dstPort}`,
    }));
  return { packets, skipped: skipped + badUdp };
}

function loadPacketFolder(dir: string): LoadedCapture {
  const names = readdirSync(dir)
    .filter((n) => !n.startsWith('.') && statSync(path.join(dir, n)).isFile())
    .filter((n) => !n.endsWith('.json') && !n.endsWith('.md'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return {
    packets: names.map((n) => ({
      time: undefined,
      bytes: new Uint8Array(readFileSync(path.join(dir, n))),
      source: n,
    })),
    skipped: 0,
  };
}
