/**
 * Raw peers of the virtual devices for the conformance tests: a TCP peer that keeps every byte, an
 * RTDE peer speaking raw packages (RTDE guide), and the controller's events. No client of ours.
 */
import net from 'node:net';
import { expect } from 'vitest';
import type { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';

/** What a test opened, closed after it (the caller's afterEach runs these). */
export type Cleanup = (() => Promise<void> | void)[];

/** A raw TCP peer: every byte it receives, in order, and a way to wait for some. */
export async function raw(
  cleanup: Cleanup,
  port: number,
): Promise<{
  socket: net.Socket;
  received: () => Buffer;
  until: (n: number) => Promise<Buffer>;
}> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((r, j) => socket.once('connect', r).once('error', j));
  cleanup.push(() => void socket.destroy());
  let bytes = Buffer.alloc(0);
  const waiters: (() => void)[] = [];
  socket.on('data', (chunk) => {
    bytes = Buffer.concat([bytes, chunk]);
    for (const w of waiters.splice(0)) w();
  });
  const until = async (n: number): Promise<Buffer> => {
    while (bytes.length < n) await new Promise<void>((r) => waiters.push(r));
    return bytes;
  };
  return { socket, received: () => bytes, until };
}

/** Waits for a controller event matching `pattern` (controller time advances in real time). */
export function event(u: VirtualUr, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const on = (e: string): void => {
      if (!pattern.test(e)) return;
      u.controller.off('event', on);
      resolve(e);
    };
    u.controller.on('event', on);
  });
}

/** An RTDE peer speaking raw packages (RTDE guide): uint16 size, uint8 type, payload. */
export async function rtdeRaw(
  cleanup: Cleanup,
  port: number,
): Promise<{
  send: (type: string, payload?: Buffer) => void;
  next: (type: string) => Promise<Buffer>;
  socket: net.Socket;
}> {
  const peer = await raw(cleanup, port);
  let offset = 0;
  const next = async (type: string): Promise<Buffer> => {
    for (;;) {
      const bytes = await peer.until(offset + 3);
      const size = bytes.readUInt16BE(offset);
      const all = await peer.until(offset + size);
      const t = String.fromCharCode(all[offset + 2]!);
      const payload = all.subarray(offset + 3, offset + size);
      offset += size;
      if (t === type) return payload;
    }
  };
  const send = (type: string, payload: Buffer = Buffer.alloc(0)): void => {
    const head = Buffer.alloc(3);
    head.writeUInt16BE(3 + payload.length);
    head[2] = type.charCodeAt(0);
    peer.socket.write(Buffer.concat([head, payload]));
  };
  return { send, next, socket: peer.socket };
}

export const u16 = (v: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
};
export const f64 = (v: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return b;
};
export const i32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};

/** Protocol v2, then an input recipe of `names`: the reply's recipe id and types. */
export async function setupInputs(
  peer: Awaited<ReturnType<typeof rtdeRaw>>,
  names: readonly string[],
): Promise<{ id: number; types: string }> {
  peer.send('V', u16(2));
  expect((await peer.next('V'))[0]).toBe(1);
  peer.send('I', Buffer.from(names.join(','), 'latin1'));
  const reply = await peer.next('I');
  return { id: reply[0]!, types: reply.subarray(1).toString('latin1') };
}
