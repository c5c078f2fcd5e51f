/**
 * WebSocket frames no well-behaved client sends, written on a client's own TCP connection past the
 * ws library, and raw HTTP requests and upgrades as written: for tests of servers that must survive
 * them (the console's web server, the Foxglove live view).
 */
import { connect } from 'node:net';
import type { WebSocket } from 'ws';

/** One raw request (or WebSocket upgrade) over TCP to 127.0.0.1:`port`, as written: the status code of the answer. */
export function rawStatus(port: number, head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.setEncoding('latin1');
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(head)}`)));
    socket.on('data', (chunk: string) => {
      text += chunk;
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without a status line: ${JSON.stringify(text)}`)));
  });
}

export const TEXT = 0x1;

/**
 * A client frame as written on the wire, masked with `mask` (RFC 6455, 5.2): `declared` sets the
 * length field (the payload may then be shorter, as when a long frame has only begun to arrive).
 */
export function clientFrame(o: {
  opcode: number;
  payload: Buffer;
  rsv1?: boolean;
  declared?: number;
  mask?: Buffer;
}): Buffer {
  const length = o.declared ?? o.payload.length;
  const mask = o.mask ?? Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
  const first = 0x80 | (o.rsv1 ? 0x40 : 0) | o.opcode;
  let head: Buffer;
  if (length < 126) head = Buffer.from([first, 0x80 | length]);
  else if (length < 65536) {
    head = Buffer.from([first, 0x80 | 126, 0, 0]);
    head.writeUInt16BE(length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = first;
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  const masked = Buffer.from(o.payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([head, mask, masked]);
}

/** Writes bytes on the viewer's own TCP connection, past the ws library (which would never send them). */
export function writeRaw(ws: WebSocket, bytes: Buffer): void {
  const socket = (ws as unknown as { _socket: NodeJS.WritableStream })._socket;
  socket.write(bytes);
}

/** The frames of the audit that each ended the process (issue 47), with the close code each must get. */
export const killerFrames: { what: string; code: number; frame: () => Buffer }[] = [
  {
    what: 'a 6-byte frame with RSV1 set (no extension agreed)',
    code: 1002,
    frame: () => clientFrame({ opcode: TEXT, payload: Buffer.alloc(0), rsv1: true }),
  },
  {
    what: '4 bytes of text that are not UTF-8',
    code: 1007,
    frame: () => clientFrame({ opcode: TEXT, payload: Buffer.from([0xff, 0xfe, 0xfd, 0xfc]) }),
  },
  {
    what: 'the start of a 101 MiB message',
    code: 1009,
    frame: () =>
      clientFrame({ opcode: TEXT, payload: Buffer.alloc(64 * 1024, 0x20), declared: 101 * 1024 * 1024 }),
  },
];
