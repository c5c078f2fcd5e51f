/**
 * WebSocket backpressure in web mode (issue 29, finding 9): a client that stops reading is cut
 * off once more than the cap waits for it, while a client that keeps up stays connected. The
 * console core is a stand-in that publishes events when the test says so; the server, the
 * sockets and the TCP connections are real (127.0.0.1).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CommandResponse, ConsoleEvent } from '#contract/console-api';
import { startWebServer, type WebConsoleCore, type WebServer } from '../../src-main/console/web-server';

const CAP = 256 * 1024;

/** A console core that only publishes events; `listeners` shows who is still subscribed. */
class EventSource implements WebConsoleCore {
  readonly listeners = new Set<(e: ConsoleEvent) => void>();
  subscribe(listener: (e: ConsoleEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  handle(): Promise<CommandResponse> {
    return Promise.resolve({ ok: false, error: 'not served here' });
  }
  publish(event: ConsoleEvent): void {
    for (const l of [...this.listeners]) l(event);
  }
}

let dir: string;
let core: EventSource;
let server: WebServer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'parapush-web-bp-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  core = new EventSource();
  server = await startWebServer({ core, rendererDir: dir, port: 0, maxBufferedBytes: CAP });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client that completes the WebSocket handshake and then never reads another byte. */
function stalledClient(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () =>
      socket.write(
        `GET /api?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
          'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
    );
    socket.setEncoding('latin1');
    socket.once('data', (head: string) => {
      if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(head));
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => undefined);
  });
}

function readingClient(): Promise<{ ws: WebSocket; received: () => number }> {
  return new Promise((resolve, reject) => {
    let count = 0;
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${server.token}`);
    ws.on('message', () => count++);
    ws.once('open', () => resolve({ ws, received: () => count }));
    ws.once('error', reject);
  });
}

const bigLog = (i: number): ConsoleEvent => ({
  type: 'log',
  at: 0,
  level: 'info',
  source: 'test',
  message: `${i} ${'x'.repeat(16 * 1024)}`,
});

describe('web mode backpressure', () => {
  it('disconnects a client that stops reading, and keeps one that reads', async () => {
    const stalled = await stalledClient();
    const reader = await readingClient();
    expect(core.listeners.size).toBe(2);

    // Batches of 16 events (256 kB); the next only once the reader has all of the last, so the
    // reader is never more than one batch behind while the stalled client falls ever further.
    const batch = 16;
    let sent = 0;
    for (let round = 0; round < 400 && core.listeners.size > 1; round++) {
      for (let i = 0; i < batch; i++) core.publish(bigLog(sent++));
      while (reader.received() < sent && reader.ws.readyState === WebSocket.OPEN)
        await new Promise<void>((r) => reader.ws.once('message', () => r()));
    }

    expect(core.listeners.size).toBe(1);
    expect(reader.ws.readyState).toBe(WebSocket.OPEN);
    expect(reader.received()).toBe(sent);
    // Far more than the cap was published, yet the stalled client did not hold it all.
    expect(sent * 16 * 1024).toBeGreaterThan(4 * CAP);

    reader.ws.close();
    stalled.destroy();
  });
});
