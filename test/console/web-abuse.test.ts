/**
 * Web mode under abuse: the real server on 127.0.0.1 gets every malformed or hostile input the
 * hardening audit found (issue 16) and must answer each with a 4xx status or a WebSocket close
 * code, never crash (an unhandled error here fails the run), and keep serving: after every case a
 * good page request and a good API command still succeed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { serverFrameSchema } from '#contract/console-api';
import { ConsoleCore } from '../../src-main/console/console-core';
import { MAX_FRAME_BYTES, startWebServer, type WebServer } from '../../src-main/console/web-server';
import { rawStatus } from '../helpers/ws-frames';

let dir: string;
let core: ConsoleCore;
let server: WebServer;
/** What would have ended a real `parapush web` process: the test runner survives it, we must not. */
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => void uncaught.push(err);

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  dir = mkdtempSync(path.join(tmpdir(), 'parapush-web-abuse-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  core = new ConsoleCore({ scenesDir: path.resolve('resources/scenes') });
  server = await startWebServer({ core, rendererDir: dir, port: 0 });
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  await server.close();
  core.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** One raw request over TCP, as written (no client library to tidy it up): the status code. */
const raw = (head: string): Promise<number> => rawStatus(server.port, head);

const host = () => `Host: 127.0.0.1:${server.port}\r\n`;
const get = (target: string) => raw(`GET ${target} HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`);
const handshake = 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
const upgrade = (target: string, headers = handshake) =>
  raw(`GET ${target} HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\n${headers}\r\n`);

function openSocket(query: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api${query}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}

/** The server still serves: the page with the token, and one API command over a fresh socket. */
async function stillServing(): Promise<void> {
  expect(await get(`/?token=${server.token}`)).toBe(200);
  const ws = await openSocket(`?token=${server.token}`);
  const reply = new Promise<unknown>((resolve) =>
    ws.on('message', (data: Buffer) => {
      const frame = serverFrameSchema.parse(JSON.parse(data.toString()));
      if (frame.kind === 'response') resolve(frame);
    }),
  );
  ws.send(JSON.stringify({ kind: 'command', id: 1, command: { type: 'scene.list' } }));
  expect(await reply).toMatchObject({ id: 1, response: { ok: true } });
  ws.close();
}

describe('web mode under abuse', () => {
  afterEach(async () => {
    expect(uncaught.splice(0)).toEqual([]);
    await stillServing();
  });

  it('answers 400 to a request target the URL parser cannot read, before any other check', async () => {
    expect(await get('http://[')).toBe(400);
    expect(await get(`http://[/?token=${server.token}`)).toBe(400);
    // The parser would read a leading backslash as another host.
    expect(await get(`/\\[/?token=${server.token}`)).toBe(400);
    expect(await get(`/\\evil.example/?token=${server.token}`)).toBe(400);
  });

  it('answers 400 to a malformed target on a WebSocket upgrade', async () => {
    expect(await upgrade('http://[')).toBe(400);
    expect(await upgrade(`http://[/api?token=${server.token}`)).toBe(400);
    // A good target with a broken handshake: the ws library answers it.
    expect(
      await upgrade(`/api?token=${server.token}`, 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: !\r\n'),
    ).toBe(400);
  });

  it('answers 400 to a path that is not percent-encoded UTF-8 or holds a NUL', async () => {
    expect(await get(`/%E0%A4%A?token=${server.token}`)).toBe(400);
    expect(await get('/assets/%E0%A4%A.js')).toBe(400);
    expect(await get('/%00.html')).toBe(400);
    expect(await get('/..%2f..%2f..%2fetc%2fpasswd')).toBe(404);
  });

  it('answers 403 to another Host, and to another Origin on an upgrade', async () => {
    const evil = (target: string, upgradeHeaders = '') =>
      raw(`GET ${target} HTTP/1.1\r\nHost: evil.example\r\n${upgradeHeaders}Connection: close\r\n\r\n`);
    expect(await evil(`/?token=${server.token}`)).toBe(403);
    expect(await evil(`/api?token=${server.token}`, 'Upgrade: websocket\r\n')).toBe(403);
    expect(await upgrade(`/api?token=${server.token}`, `${handshake}Origin: https://evil.example\r\n`)).toBe(
      403,
    );
  });

  it('requires the token on the WebSocket itself: no cookie stands in for it', async () => {
    await expect(openSocket('')).rejects.toThrow('401');
    await expect(openSocket('', { Cookie: `parapush_token=${server.token}` })).rejects.toThrow('401');
    expect(await upgrade('/api')).toBe(401);
    expect(await upgrade('/api?token=')).toBe(401);
  });

  it('never puts the token in a cookie', async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('closes a socket that sends a frame over the payload limit with 1009', async () => {
    const ws = await openSocket(`?token=${server.token}`);
    const closed = closeCode(ws);
    ws.send('x'.repeat(MAX_FRAME_BYTES + 1));
    expect(await closed).toBe(1009);
  });

  it('closes a socket that sends a text frame that is not UTF-8 with 1007', async () => {
    const ws = await openSocket(`?token=${server.token}`);
    const closed = closeCode(ws);
    ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect(await closed).toBe(1007);
  });

  it('survives a client that resets the connection while its upgrade is refused', async () => {
    for (const target of ['/api', 'http://[', '/elsewhere']) {
      await new Promise<void>((resolve) => {
        const socket = connect(server.port, '127.0.0.1', () => {
          socket.write(
            `GET ${target} HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
          );
          socket.resetAndDestroy();
          resolve();
        });
      });
    }
    // Give the server the time to see the resets before the next request checks on it.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
});
