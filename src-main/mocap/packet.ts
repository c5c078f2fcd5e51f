/**
 * One NatNet packet <-> one typed message. The header is uint16 message id + uint16 payload
 * byte count. decodePacket never throws: a malformed packet comes back as { ok: false } with the
 * reason, so callers count and report it and carry on.
 */
import { HEADER_BYTES, MAX_PACKET_BYTES, MessageId } from './message-ids';
import { ByteReader, DecodeError } from './reader';
import { ByteWriter } from './writer';
import { decodeConnect, encodeConnect, type ConnectPayload } from './messages/connect';
import { decodeServerInfo, encodeServerInfo, type ServerInfo } from './messages/server-info';
import {
  decodeEchoRequest,
  decodeEchoResponse,
  encodeEchoRequest,
  encodeEchoResponse,
  type EchoRequest,
  type EchoResponse,
} from './messages/echo';
import { decodeText, encodeText } from './messages/text';
import { decodeModelDef, encodeModelDef, type ModelDefinitions } from './messages/model-def';
import { decodeFrame, encodeFrame, type FrameOfData } from './messages/frame';
import { isSupported, formatVersion, type NatNetVersion } from './version';

export type NatNetMessage =
  | ({ kind: 'connect' } & ConnectPayload)
  | ({ kind: 'discovery' } & ConnectPayload)
  | ({ kind: 'serverInfo' } & ServerInfo)
  | { kind: 'request'; command: string }
  | { kind: 'response'; bytes: Uint8Array }
  | { kind: 'requestModelDef' }
  | ({ kind: 'modelDef' } & ModelDefinitions)
  | { kind: 'requestFrame' }
  | ({ kind: 'frame' } & FrameOfData)
  | { kind: 'messageString'; text: string }
  | { kind: 'disconnect' }
  | { kind: 'keepAlive' }
  | { kind: 'disconnectByTimeout' }
  | ({ kind: 'echoRequest' } & EchoRequest)
  | ({ kind: 'echoResponse' } & EchoResponse)
  | { kind: 'unrecognizedRequest' };

export type MessageKind = NatNetMessage['kind'];

export type DecodeResult =
  { ok: true; message: NatNetMessage } | { ok: false; messageId: number | undefined; error: string };

/** The message id of each kind (the header's first field). */
export const ID_OF: Record<MessageKind, number> = {
  connect: MessageId.Connect,
  discovery: MessageId.Discovery,
  serverInfo: MessageId.ServerInfo,
  request: MessageId.Request,
  response: MessageId.Response,
  requestModelDef: MessageId.RequestModelDef,
  modelDef: MessageId.ModelDef,
  requestFrame: MessageId.RequestFrameOfData,
  frame: MessageId.FrameOfData,
  messageString: MessageId.MessageString,
  disconnect: MessageId.Disconnect,
  keepAlive: MessageId.KeepAlive,
  disconnectByTimeout: MessageId.DisconnectByTimeout,
  echoRequest: MessageId.EchoRequest,
  echoResponse: MessageId.EchoResponse,
  unrecognizedRequest: MessageId.UnrecognizedRequest,
};

function empty(p: Uint8Array, what: string): void {
  new ByteReader(p).expectEnd(what);
}

function decodePayload(id: number, p: Uint8Array, v: NatNetVersion): NatNetMessage {
  switch (id) {
    case MessageId.Connect:
      return { kind: 'connect', ...decodeConnect(p) };
    case MessageId.Discovery:
      return { kind: 'discovery', ...decodeConnect(p) };
    case MessageId.ServerInfo:
      return { kind: 'serverInfo', ...decodeServerInfo(p) };
    case MessageId.Request:
      return { kind: 'request', command: decodeText(p, 'request') };
    case MessageId.Response:
      return { kind: 'response', bytes: p.slice() };
    case MessageId.RequestModelDef:
      empty(p, 'model definition request');
      return { kind: 'requestModelDef' };
    case MessageId.ModelDef:
      return { kind: 'modelDef', ...decodeModelDef(p, v) };
    case MessageId.RequestFrameOfData:
      empty(p, 'frame request');
      return { kind: 'requestFrame' };
    case MessageId.FrameOfData:
      return { kind: 'frame', ...decodeFrame(p, v) };
    case MessageId.MessageString:
      return { kind: 'messageString', text: decodeText(p, 'message string') };
    case MessageId.Disconnect:
      return { kind: 'disconnect' };
    case MessageId.KeepAlive:
      return { kind: 'keepAlive' };
    case MessageId.DisconnectByTimeout:
      return { kind: 'disconnectByTimeout' };
    case MessageId.EchoRequest:
      return { kind: 'echoRequest', ...decodeEchoRequest(p) };
    case MessageId.EchoResponse:
      return { kind: 'echoResponse', ...decodeEchoResponse(p) };
    case MessageId.UnrecognizedRequest:
      return { kind: 'unrecognizedRequest' };
    default:
      throw new DecodeError(`unknown message id ${id}`, 0);
  }
}

/**
 * Decodes one packet with the layout of NatNet version `v` (frames and model definitions
 * depend on it; the server announces it in SERVERINFO).
 */
export function decodePacket(bytes: Uint8Array, v: NatNetVersion): DecodeResult {
  let messageId: number | undefined;
  try {
    if (bytes.byteLength > MAX_PACKET_BYTES)
      throw new DecodeError(`packet of ${bytes.byteLength} bytes is too large`, 0);
    const r = new ByteReader(bytes);
    messageId = r.u16('message id');
    const size = r.u16('payload size');
    if (size !== r.remaining)
      throw new DecodeError(`header says ${size} payload bytes, packet has ${r.remaining}`, 2);
    if (!isSupported(v))
      throw new DecodeError(`NatNet ${formatVersion(v)} is not supported (3.0 or later)`, 0);
    return { ok: true, message: decodePayload(messageId, r.bytesOf(size), v) };
  } catch (err) {
    // Only our own DecodeError is expected; anything else is a decoder bug, still never thrown out.
    const error = err instanceof DecodeError ? err.message : `decoder failure: ${String(err)}`;
    return { ok: false, messageId, error };
  }
}

function encodePayload(m: NatNetMessage, v: NatNetVersion): Uint8Array {
  switch (m.kind) {
    case 'connect':
    case 'discovery':
      return encodeConnect(m);
    case 'serverInfo':
      return encodeServerInfo(m);
    case 'request':
      return encodeText(m.command);
    case 'response':
      return m.bytes;
    case 'messageString':
      return encodeText(m.text);
    case 'modelDef':
      return encodeModelDef(m, v);
    case 'frame':
      return encodeFrame(m, v);
    case 'echoRequest':
      return encodeEchoRequest(m);
    case 'echoResponse':
      return encodeEchoResponse(m);
    case 'requestModelDef':
    case 'requestFrame':
    case 'disconnect':
    case 'keepAlive':
    case 'disconnectByTimeout':
    case 'unrecognizedRequest':
      return new Uint8Array(0);
  }
}

/** Encodes a message into one packet; throws if it would exceed the NatNet packet limit. */
export function encodePacket(m: NatNetMessage, v: NatNetVersion): Uint8Array {
  const payload = encodePayload(m, v);
  if (payload.byteLength + HEADER_BYTES > MAX_PACKET_BYTES) {
    throw new RangeError(`${m.kind} of ${payload.byteLength} bytes exceeds the NatNet packet limit`);
  }
  return new ByteWriter(payload.byteLength + HEADER_BYTES)
    .u16(ID_OF[m.kind])
    .u16(payload.byteLength)
    .bytes(payload)
    .finish();
}

/** The message id of a packet without decoding it (undefined if shorter than a header). */
export function peekMessageId(bytes: Uint8Array): number | undefined {
  return bytes.byteLength >= 2 ? bytes[0]! | (bytes[1]! << 8) : undefined;
}
