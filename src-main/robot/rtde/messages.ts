/**
 * Byte-exact RTDE messages, both directions, protocol v1 and v2.
 *
 * Packet: uint16 size (whole packet, header included) + uint8 type + payload, big-endian. The same
 * type byte means a request from the client and a reply from the controller with a different
 * payload, so there is one union per direction. Text is ASCII (decoded as UTF-8, which ASCII is
 * a subset of, so any string survives a round trip); name and type lists are comma-separated with
 * no terminator, so a name with a comma, or an empty name, cannot be encoded. Decoding bytes from
 * the network throws RtdeProtocolError and nothing else, whatever the bytes.
 */
import { isFieldType, type FailedFieldType, type FieldType } from './field-types';

export const MessageType = {
  REQUEST_PROTOCOL_VERSION: 86, // 'V'
  GET_URCONTROL_VERSION: 118, // 'v'
  TEXT_MESSAGE: 77, // 'M'
  DATA_PACKAGE: 85, // 'U'
  CONTROL_PACKAGE_SETUP_OUTPUTS: 79, // 'O'
  CONTROL_PACKAGE_SETUP_INPUTS: 73, // 'I'
  CONTROL_PACKAGE_START: 83, // 'S'
  CONTROL_PACKAGE_PAUSE: 80, // 'P'
} as const;

export type ProtocolVersion = 1 | 2;
export const HEADER_SIZE = 3;
export const MAX_PACKET_SIZE = 0xffff;

export const TextLevel = { EXCEPTION: 0, ERROR: 1, WARNING: 2, INFO: 3 } as const;

export interface TextMessage {
  kind: 'text';
  level: number;
  message: string;
  /** v2 only; empty in v1. */
  source: string;
}

/** Client -> controller. */
export type ClientMessage =
  | { kind: 'requestProtocolVersion'; version: number }
  | { kind: 'getUrcontrolVersion' }
  /** v2 sends a frequency; v1 has none (the controller streams at its own rate). */
  | { kind: 'setupOutputs'; frequency: number | undefined; names: string[] }
  | { kind: 'setupInputs'; names: string[] }
  | { kind: 'start' }
  | { kind: 'pause' }
  | { kind: 'data'; recipeId: number; fields: Uint8Array }
  | TextMessage;

/** A type slot in a setup reply: a type, or why the variable cannot be served. */
export type SetupSlot = FieldType | FailedFieldType;

/** Controller -> client. */
export type ControllerMessage =
  | { kind: 'protocolVersionReply'; accepted: boolean }
  | { kind: 'urcontrolVersion'; major: number; minor: number; bugfix: number; build: number }
  /** v1 output replies carry no recipe id: `recipeId` is undefined there. */
  | { kind: 'setupOutputsReply'; recipeId: number | undefined; types: SetupSlot[] }
  | { kind: 'setupInputsReply'; recipeId: number; types: SetupSlot[] }
  | { kind: 'startReply'; accepted: boolean }
  | { kind: 'pauseReply'; accepted: boolean }
  /** v1 output packages carry no recipe id. */
  | { kind: 'data'; recipeId: number | undefined; fields: Uint8Array }
  | TextMessage;

export class RtdeProtocolError extends Error {
  override name = 'RtdeProtocolError';
}

const ascii = new TextEncoder();
/** Not fatal (a garbled byte becomes U+FFFD, never an exception); a leading BOM is kept as text. */
const asciiDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

function packet(type: number, payload: Uint8Array): Uint8Array {
  const size = HEADER_SIZE + payload.length;
  if (size > MAX_PACKET_SIZE)
    throw new RtdeProtocolError(`packet of ${size} bytes exceeds ${MAX_PACKET_SIZE}`);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint16(0, size);
  out[2] = type;
  out.set(payload, HEADER_SIZE);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Integers are checked before they are written: a DataView would silently wrap them. */
function checkInt(n: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new RtdeProtocolError(`${what} ${n} is not in 0..${max}`);
  return n;
}

const u8 = (n: number): Uint8Array => Uint8Array.of(checkInt(n, 0xff, 'uint8'));
function u16(n: number): Uint8Array {
  checkInt(n, 0xffff, 'uint16');
  const b = new Uint8Array(2);
  new DataView(b.buffer).setUint16(0, n);
  return b;
}
function u32s(...ns: number[]): Uint8Array {
  const b = new Uint8Array(4 * ns.length);
  const v = new DataView(b.buffer);
  ns.forEach((n, i) => v.setUint32(4 * i, checkInt(n, 0xffffffff, 'uint32')));
  return b;
}
function f64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, n);
  return b;
}

function shortString(s: string, what: string): Uint8Array {
  const bytes = ascii.encode(s);
  if (bytes.length > 0xff) throw new RtdeProtocolError(`${what} longer than 255 bytes`);
  return concat(u8(bytes.length), bytes);
}

/** A comma-separated list; each item must be non-empty and comma-free to come back as itself. */
function list(items: readonly string[], what: string): Uint8Array {
  for (const item of items)
    if (item.length === 0 || item.includes(','))
      throw new RtdeProtocolError(`${what} "${item}" cannot be sent: empty, or contains a comma`);
  return ascii.encode(items.join(','));
}

function encodeText(m: TextMessage, version: ProtocolVersion): Uint8Array {
  const payload =
    version === 2
      ? concat(shortString(m.message, 'message'), shortString(m.source, 'source'), u8(m.level))
      : concat(u8(m.level), ascii.encode(m.message));
  return packet(MessageType.TEXT_MESSAGE, payload);
}

export function encodeClientMessage(m: ClientMessage, version: ProtocolVersion): Uint8Array {
  switch (m.kind) {
    case 'requestProtocolVersion':
      return packet(MessageType.REQUEST_PROTOCOL_VERSION, u16(m.version));
    case 'getUrcontrolVersion':
      return packet(MessageType.GET_URCONTROL_VERSION, new Uint8Array(0));
    case 'setupOutputs': {
      const names = list(m.names, 'variable name');
      if (version === 1) return packet(MessageType.CONTROL_PACKAGE_SETUP_OUTPUTS, names);
      if (m.frequency === undefined) throw new RtdeProtocolError('a v2 output setup needs a frequency');
      return packet(MessageType.CONTROL_PACKAGE_SETUP_OUTPUTS, concat(f64(m.frequency), names));
    }
    case 'setupInputs':
      return packet(MessageType.CONTROL_PACKAGE_SETUP_INPUTS, list(m.names, 'variable name'));
    case 'start':
      return packet(MessageType.CONTROL_PACKAGE_START, new Uint8Array(0));
    case 'pause':
      return packet(MessageType.CONTROL_PACKAGE_PAUSE, new Uint8Array(0));
    case 'data':
      return packet(MessageType.DATA_PACKAGE, concat(u8(m.recipeId), m.fields));
    case 'text':
      return encodeText(m, version);
  }
}

export function encodeControllerMessage(m: ControllerMessage, version: ProtocolVersion): Uint8Array {
  switch (m.kind) {
    case 'protocolVersionReply':
      return packet(MessageType.REQUEST_PROTOCOL_VERSION, u8(m.accepted ? 1 : 0));
    case 'urcontrolVersion':
      return packet(MessageType.GET_URCONTROL_VERSION, u32s(m.major, m.minor, m.bugfix, m.build));
    case 'setupOutputsReply': {
      const types = list(m.types, 'field type');
      if (version === 1) return packet(MessageType.CONTROL_PACKAGE_SETUP_OUTPUTS, types);
      return packet(MessageType.CONTROL_PACKAGE_SETUP_OUTPUTS, concat(u8(m.recipeId ?? 0), types));
    }
    case 'setupInputsReply':
      return packet(
        MessageType.CONTROL_PACKAGE_SETUP_INPUTS,
        concat(u8(m.recipeId), list(m.types, 'field type')),
      );
    case 'startReply':
      return packet(MessageType.CONTROL_PACKAGE_START, u8(m.accepted ? 1 : 0));
    case 'pauseReply':
      return packet(MessageType.CONTROL_PACKAGE_PAUSE, u8(m.accepted ? 1 : 0));
    case 'data':
      if (version === 1) return packet(MessageType.DATA_PACKAGE, m.fields);
      return packet(MessageType.DATA_PACKAGE, concat(u8(m.recipeId ?? 0), m.fields));
    case 'text':
      return encodeText(m, version);
  }
}

/** Cursor over one payload that names the message in its errors. */
class Reader {
  private offset = 0;
  private readonly view: DataView;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number): void {
    if (this.offset + n > this.bytes.length) {
      throw new RtdeProtocolError(`${this.what}: payload of ${this.bytes.length} bytes is too short`);
    }
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset);
    this.offset += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.offset);
    this.offset += 8;
    return v;
  }
  text(n: number): string {
    this.need(n);
    const s = asciiDecoder.decode(this.bytes.subarray(this.offset, this.offset + n));
    this.offset += n;
    return s;
  }
  rest(): Uint8Array {
    const r = this.bytes.subarray(this.offset);
    this.offset = this.bytes.length;
    return r;
  }
  restText(): string {
    return this.text(this.bytes.length - this.offset);
  }
  end(): void {
    if (this.offset !== this.bytes.length) {
      throw new RtdeProtocolError(
        `${this.what}: ${this.bytes.length - this.offset} unexpected trailing bytes`,
      );
    }
  }
}

function names(text: string): string[] {
  return text.length === 0 ? [] : text.split(',');
}

function slots(text: string, what: string): SetupSlot[] {
  return names(text).map((t) => {
    if (t === 'NOT_FOUND' || t === 'IN_USE' || isFieldType(t)) return t;
    throw new RtdeProtocolError(`${what}: unknown field type "${t}"`);
  });
}

function decodeText(r: Reader, version: ProtocolVersion): TextMessage {
  if (version === 2) {
    const message = r.text(r.u8());
    const source = r.text(r.u8());
    const level = r.u8();
    r.end();
    return { kind: 'text', level, message, source };
  }
  const level = r.u8();
  return { kind: 'text', level, message: r.restText(), source: '' };
}

export function decodeClientMessage(
  type: number,
  payload: Uint8Array,
  version: ProtocolVersion,
): ClientMessage {
  const r = new Reader(payload, `client message ${String.fromCharCode(type)}`);
  switch (type) {
    case MessageType.REQUEST_PROTOCOL_VERSION: {
      const v = r.u16();
      r.end();
      return { kind: 'requestProtocolVersion', version: v };
    }
    case MessageType.GET_URCONTROL_VERSION:
      r.end();
      return { kind: 'getUrcontrolVersion' };
    case MessageType.CONTROL_PACKAGE_SETUP_OUTPUTS: {
      const frequency = version === 2 ? r.f64() : undefined;
      return { kind: 'setupOutputs', frequency, names: names(r.restText()) };
    }
    case MessageType.CONTROL_PACKAGE_SETUP_INPUTS:
      return { kind: 'setupInputs', names: names(r.restText()) };
    case MessageType.CONTROL_PACKAGE_START:
      r.end();
      return { kind: 'start' };
    case MessageType.CONTROL_PACKAGE_PAUSE:
      r.end();
      return { kind: 'pause' };
    case MessageType.DATA_PACKAGE:
      return { kind: 'data', recipeId: r.u8(), fields: r.rest() };
    case MessageType.TEXT_MESSAGE:
      return decodeText(r, version);
    default:
      throw new RtdeProtocolError(`unknown client message type ${type}`);
  }
}

export function decodeControllerMessage(
  type: number,
  payload: Uint8Array,
  version: ProtocolVersion,
): ControllerMessage {
  const what = `controller message ${String.fromCharCode(type)}`;
  const r = new Reader(payload, what);
  switch (type) {
    case MessageType.REQUEST_PROTOCOL_VERSION: {
      const accepted = r.u8() !== 0;
      r.end();
      return { kind: 'protocolVersionReply', accepted };
    }
    case MessageType.GET_URCONTROL_VERSION: {
      const [major, minor, bugfix, build] = [r.u32(), r.u32(), r.u32(), r.u32()];
      r.end();
      return { kind: 'urcontrolVersion', major, minor, bugfix, build };
    }
    case MessageType.CONTROL_PACKAGE_SETUP_OUTPUTS: {
      const recipeId = version === 2 ? r.u8() : undefined;
      return { kind: 'setupOutputsReply', recipeId, types: slots(r.restText(), what) };
    }
    case MessageType.CONTROL_PACKAGE_SETUP_INPUTS: {
      const recipeId = r.u8();
      return { kind: 'setupInputsReply', recipeId, types: slots(r.restText(), what) };
    }
    case MessageType.CONTROL_PACKAGE_START: {
      const accepted = r.u8() !== 0;
      r.end();
      return { kind: 'startReply', accepted };
    }
    case MessageType.CONTROL_PACKAGE_PAUSE: {
      const accepted = r.u8() !== 0;
      r.end();
      return { kind: 'pauseReply', accepted };
    }
    case MessageType.DATA_PACKAGE:
      return { kind: 'data', recipeId: version === 2 ? r.u8() : undefined, fields: r.rest() };
    case MessageType.TEXT_MESSAGE:
      return decodeText(r, version);
    default:
      throw new RtdeProtocolError(`unknown controller message type ${type}`);
  }
}
