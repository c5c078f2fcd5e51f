/**
 * SERVERINFO (1), the answer to CONNECT: char name[256] (text stops at the first NUL; Motive
 * leaves garbage after it), uint8 appVersion[4], uint8 natNetVersion[4], uint64 high-resolution
 * clock frequency, uint16 data port, bool multicast, uint8 multicast group[4]. NatNet 2.x servers
 * stop after the versions (264 bytes).
 */
import { ByteReader } from '../reader';
import { ByteWriter } from '../writer';
import type { NatNetVersion } from '../version';

export interface ServerInfo {
  appName: string;
  appVersion: NatNetVersion;
  natNetVersion: NatNetVersion;
  /** Ticks per second of the server clock that stamps frames and echo responses; 0 if not sent. */
  clockFrequency: number;
  dataPort: number;
  multicast: boolean;
  multicastAddress: string;
  /** False for the short (NatNet 2.x) form without clock and connection info. */
  hasConnectionInfo: boolean;
}

const NAME_BYTES = 256;

export function decodeServerInfo(payload: Uint8Array): ServerInfo {
  const r = new ByteReader(payload);
  const appName = r.fixedString(NAME_BYTES, 'server name');
  const appVersion: NatNetVersion = [r.u8(), r.u8(), r.u8(), r.u8()];
  const natNetVersion: NatNetVersion = [r.u8(), r.u8(), r.u8(), r.u8()];
  if (r.remaining === 0) {
    return {
      appName,
      appVersion,
      natNetVersion,
      clockFrequency: 0,
      dataPort: 0,
      multicast: false,
      multicastAddress: '',
      hasConnectionInfo: false,
    };
  }
  const clockFrequency = Number(r.u64('clock frequency'));
  const dataPort = r.u16('data port');
  const multicast = r.u8('multicast flag') !== 0;
  const multicastAddress = [r.u8(), r.u8(), r.u8(), r.u8()].join('.');
  r.expectEnd('server info');
  return {
    appName,
    appVersion,
    natNetVersion,
    clockFrequency,
    dataPort,
    multicast,
    multicastAddress,
    hasConnectionInfo: true,
  };
}

export function encodeServerInfo(s: ServerInfo): Uint8Array {
  const w = new ByteWriter(279);
  w.fixedString(s.appName, NAME_BYTES);
  for (const b of s.appVersion) w.u8(b);
  for (const b of s.natNetVersion) w.u8(b);
  if (!s.hasConnectionInfo) return w.finish();
  w.u64(BigInt(s.clockFrequency))
    .u16(s.dataPort)
    .u8(s.multicast ? 1 : 0);
  const octets = s.multicastAddress ? s.multicastAddress.split('.').map(Number) : [0, 0, 0, 0];
  for (const o of octets) w.u8(o);
  return w.finish();
}
