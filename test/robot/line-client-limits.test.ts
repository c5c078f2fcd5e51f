/**
 * A line peer that never ends its line, or floods lines nobody asked for, must not grow the
 * client's buffers without bound: the link drops with a reason that says why.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LineClient,
  LineClientError,
  MAX_LINE_BYTES,
  MAX_UNREAD_LINES,
} from '../../src-main/robot/line-client';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A server that answers every request line with `reply(line)` (raw bytes, framing up to it). */
async function server(reply: (line: string, socket: net.Socket) => void): Promise<number> {
  const srv = net.createServer((socket) => {
    socket.on('error', () => undefined);
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        reply(buf.slice(0, nl), socket);
        buf = buf.slice(nl + 1);
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => srv.close());
  return (srv.address() as net.AddressInfo).port;
}

async function connect(port: number): Promise<LineClient> {
  const client = await LineClient.connect('127.0.0.1', port, 'gripper', 5);
  cleanups.push(() => client.close());
  return client;
}

describe('line client limits', () => {
  it('drops the link when a reply line has no end within the limit', async () => {
    // 1 MiB, no newline: the old client buffered it all and waited for more.
    const port = await server((_l, s) => s.write(Buffer.alloc(1 << 20, 0x41)));
    const client = await connect(port);
    const closed = new Promise<Error>((resolve) => client.onClose(resolve));
    await expect(client.request('GET POS')).rejects.toThrow(
      new LineClientError(`gripper: no line end within ${MAX_LINE_BYTES} bytes; link dropped`),
    );
    expect((await closed).message).toMatch(/no line end/);
    expect(client.closed).toBe(true);
    await expect(client.request('GET OBJ')).rejects.toThrow(/no line end/);
  });

  it('drops the link on an over-long line even when its end arrives in the same chunk', async () => {
    const port = await server((_l, s) => s.write(`${'B'.repeat(MAX_LINE_BYTES + 1)}\n`));
    const client = await connect(port);
    await expect(client.request('GET POS')).rejects.toThrow(/reply line longer than 4096 bytes/);
  });

  it('accepts a line of exactly the limit', async () => {
    const line = 'C'.repeat(MAX_LINE_BYTES);
    const port = await server((_l, s) => s.write(`${line}\r\n`));
    const client = await connect(port);
    expect(await client.request('GET POS')).toBe(line);
  });

  it('drops the link when the peer floods lines nobody asked for', async () => {
    const port = await server((_l, s) => s.write('ack\n'.repeat(MAX_UNREAD_LINES + 10)));
    const client = await connect(port);
    const closed = new Promise<Error>((resolve) => client.onClose(resolve));
    await expect(client.request('GET POS')).resolves.toBe('ack');
    expect((await closed).message).toMatch(/lines nobody asked for/);
  });
});
