/**
 * ECHOREQUEST (12): the client's uint64 timestamp. ECHORESPONSE (13): that value back, then the
 * server clock (uint64 ticks) when the request arrived. Used for clock sync and round-trip time.
 */
import { ByteReader } from '../reader';
import { ByteWriter } from '../writer';

export interface EchoRequest {
  clientTime: bigint;
}

export interface EchoResponse {
  clientTime: bigint;
  serverTicks: bigint;
}

export function decodeEchoRequest(payload: Uint8Array): EchoRequest {
  const r = new ByteReader(payload);
  const clientTime = r.u64('echo client time');
  r.expectEnd('echo request');
  return { clientTime };
}

export function encodeEchoRequest(e: EchoRequest): Uint8Array {
  return new ByteWriter(8).u64(e.clientTime).finish();
}

export function decodeEchoResponse(payload: Uint8Array): EchoResponse {
  const r = new ByteReader(payload);
  const clientTime = r.u64('echo client time');
  const serverTicks = r.u64('echo server ticks');
  r.expectEnd('echo response');
  return { clientTime, serverTicks };
}

export function encodeEchoResponse(e: EchoResponse): Uint8Array {
  return new ByteWriter(16).u64(e.clientTime).u64(e.serverTicks).finish();
}
