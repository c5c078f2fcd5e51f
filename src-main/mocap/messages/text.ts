/**
 * REQUEST (2) and MESSAGESTRING (8) carry one NUL-terminated string; RESPONSE (3) carries either
 * a 4-byte value (int32, or float32 for "FrameRate") or a string, so it is kept as raw bytes with
 * readers for each interpretation.
 */
import { ByteReader } from '../reader';
import { ByteWriter } from '../writer';

export function decodeText(payload: Uint8Array, what: string): string {
  const r = new ByteReader(payload);
  if (payload.byteLength === 0) return '';
  const s = r.cstring(what);
  r.expectEnd(what);
  return s;
}

export function encodeText(s: string): Uint8Array {
  return new ByteWriter(s.length + 1).cstring(s).finish();
}

export function responseInt32(bytes: Uint8Array): number | undefined {
  return bytes.byteLength === 4 ? new ByteReader(bytes).i32() : undefined;
}

export function responseFloat32(bytes: Uint8Array): number | undefined {
  return bytes.byteLength === 4 ? new ByteReader(bytes).f32() : undefined;
}

/** The response as text (up to the first NUL, or all of it). */
export function responseText(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end)).toString('latin1');
}

export function int32Bytes(v: number): Uint8Array {
  return new ByteWriter(4).i32(v).finish();
}

export function float32Bytes(v: number): Uint8Array {
  return new ByteWriter(4).f32(v).finish();
}
