import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { serverFrameSchema, type ServerFrame } from '#contract/console-api';
import { ConsoleCore } from '../../src-main/console/console-core';
import { startWebServer, type WebServer } from '../../src-main/console/web-server';
import { WebSocketConsoleClient } from '../../src-renderer/src/api/ws-client';

let dir: string;
let core: ConsoleCore;
let server: WebServer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'parapush-web-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'export {};');
  core = new ConsoleCore({ scenesDir: path.resolve('resources/scenes') });
  server = await startWebServer({ core, rendererDir: dir, port: 0 });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(
  pathname: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: pathname, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function openSocket(query: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api${query}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function nextFrame(ws: WebSocket, match: (f: ServerFrame) => boolean): Promise<ServerFrame> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const frame = serverFrameSchema.parse(JSON.parse(data.toString()));
      if (match(frame)) {
        ws.off('message', onMessage);
        resolve(frame);
      }
    };
    ws.on('message', onMessage);
  });
}

describe('web mode server', () => {
  it('listens on 127.0.0.1 and prints a tokenised URL', () => {
    expect(server.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{32}$`),
    );
  });

  it('answers 401 without the token and serves the page with it', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/index.html')).status).toBe(401);
    expect((await get('/?token=wrong')).status).toBe(401);
    const ok = await get(`/?token=${server.token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('console');
    expect(String(ok.headers['content-security-policy'])).not.toContain('unsafe-eval');
    expect(ok.headers['set-cookie']).toBeUndefined();
  });

  it("serves the page's assets without the token, to its own origin only, and nothing outside", async () => {
    const asset = await get('/assets/app.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect((await get('/../../etc/passwd')).status).toBe(404);
    expect((await get('/assets/..%2f..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await get('/assets')).status).toBe(404);
  });

  it('asks the token for every spelling of the entry page: encoded, doubled, dotted or linked', async () => {
    symlinkSync(path.join(dir, 'index.html'), path.join(dir, 'assets', 'alias.html'));
    for (const spelling of [
      '/%69ndex.html',
      '/%2findex.html',
      '/assets/..%2findex.html',
      '/assets/%2e%2e%2Findex.html',
      '/index%2ehtml',
      '/assets/alias.html',
    ]) {
      expect((await get(spelling)).status, spelling).toBe(401);
      const ok = await get(`${spelling}?token=${server.token}`);
      expect(ok.status, spelling).toBe(200);
      expect(ok.body).toContain('console');
    }
    // Encoded once means decoded once: '%2569' is the name '%69ndex.html', which is not there.
    expect((await get('/%2569ndex.html')).status).toBe(404);
  });

  it('refuses other Host headers (DNS rebinding)', async () => {
    expect((await get(`/?token=${server.token}`, { Host: 'evil.example:80' })).status).toBe(403);
  });

  it('closes WebSocket upgrades without the token or from another origin', async () => {
    await expect(openSocket('')).rejects.toThrow('401');
    await expect(openSocket('?token=nope')).rejects.toThrow('401');
    await expect(openSocket(`?token=${server.token}`, { Origin: 'https://evil.example' })).rejects.toThrow(
      '403',
    );
  });

  it('answers commands and rejects malformed frames without acting on them', async () => {
    const ws = await openSocket(`?token=${server.token}`);
    const rejected = nextFrame(ws, (f) => f.kind === 'rejected');
    ws.send('{not json');
    expect(await rejected).toMatchObject({ kind: 'rejected', reason: 'frame is not valid JSON' });
    const rejected2 = nextFrame(ws, (f) => f.kind === 'rejected');
    ws.send(JSON.stringify({ kind: 'command', id: 1, command: { type: 'run.abort', source: 'telepathy' } }));
    expect(await rejected2).toMatchObject({ reason: expect.stringContaining('command.source') });
    const response = nextFrame(ws, (f) => f.kind === 'response');
    ws.send(JSON.stringify({ kind: 'command', id: 7, command: { type: 'scene.list' } }));
    expect(await response).toMatchObject({
      id: 7,
      response: {
        ok: true,
        result: {
          scenes: expect.arrayContaining([{ file: 'isrr-obstacle.json', source: 'shipped' }]),
          saveDir: expect.any(String),
        },
      },
    });
    ws.close();
  });

  it('serves the renderer client: commands, results and events over one socket', async () => {
    const g = globalThis as { WebSocket?: unknown };
    const previous = g.WebSocket;
    g.WebSocket = WebSocket;
    const rejections: string[] = [];
    const client = new WebSocketConsoleClient(
      `ws://127.0.0.1:${server.port}/api?token=${server.token}`,
      (r) => rejections.push(r),
    );
    try {
      const scenes: string[] = [];
      client.onEvent((e) => e.type === 'scene' && scenes.push(e.scene?.name ?? ''));
      const r = await client.request({ type: 'scene.load', file: 'isrr-obstacle.json', source: 'shipped' });
      expect(r.scene?.name).toBe('isrr-obstacle');
      await expect(client.request({ type: 'run.start', mode: 'dry' })).rejects.toThrow('no lab to run on');
      await expect(client.request({ type: 'run.start', mode: 'warp' } as never)).rejects.toThrow(
        'malformed command',
      );
      await expect.poll(() => scenes).toEqual(['isrr-obstacle']);
      expect(rejections).toEqual([]);
    } finally {
      client.close();
      g.WebSocket = previous;
    }
  });
});
