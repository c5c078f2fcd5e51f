/**
 * CONNECT (0) and DISCOVERY (14) share one payload: char name[256] + uint8 version1[4] + uint8
 * version2[4]. NatNet 4.x clients append connect options; those bytes are kept as they came.
 */
import { ByteReader } from '../reader';
import { ByteWriter } from '../writer';
import type { NatNetVersion } from '../version';

export interface ConnectPayload {
  name: string;
  /** The client application's version. */
  appVersion: NatNetVersion;
  /** The NatNet version the client speaks. */
  natNetVersion: NatNetVersion;
  /** 4.x connect options, opaque. */
  options: Uint8Array;
}

const NAME_BYTES = 256;

function version(r: ByteReader, what: string): NatNetVersion {
  return [r.u8(what), r.u8(what), r.u8(what), r.u8(what)];
}

export function decodeConnect(payload: Uint8Array): ConnectPayload {
  const r = new ByteReader(payload);
  const name = r.fixedString(NAME_BYTES, 'connect name');
  const appVersion = version(r, 'connect app version');
  const natNetVersion = version(r, 'connect NatNet version');
  return { name, appVersion, natNetVersion, options: r.bytesOf(r.remaining).slice() };
}

export function encodeConnect(c: ConnectPayload): Uint8Array {
  const w = new ByteWriter(NAME_BYTES + 8 + c.options.byteLength);
  w.fixedString(c.name, NAME_BYTES);
  for (const b of c.appVersion) w.u8(b);
  for (const b of c.natNetVersion) w.u8(b);
  w.bytes(c.options);
  return w.finish();
}
