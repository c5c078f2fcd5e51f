/**
 * Web mode: serves the built console UI and the console API over a WebSocket, on 127.0.0.1
 * only, behind a per-launch random token. The page is opened as /?token=...; the server then
 * sets an HttpOnly cookie so the page's own assets load, and the WebSocket must present the
 * token again. Host and Origin are checked so another site cannot reach the API through the
 * browser (DNS rebinding, cross-site WebSockets).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientFrameSchema, formatIssues, type ServerFrame } from '../contract/console-api';
import { contentSecurityPolicy } from './content-security-policy';
import type { ConsoleCore } from './console-core';

export const LOOPBACK = '127.0.0.1';
const COOKIE = 'parapush_token';
const API_PATH = '/api';
/** Largest WebSocket frame accepted from a client: commands are small (scenes < 1 MB). */
const MAX_FRAME_BYTES = 2 * 1024 * 1024;

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

export interface WebServerOptions {
  core: ConsoleCore;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; random per launch otherwise. */
  token?: string;
}

export interface WebServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const rendererDir = path.resolve(options.rendererDir);
  let port = 0;
  const origin = () => `http://${LOOPBACK}:${port}`;
  const allowedHosts = () => new Set([`${LOOPBACK}:${port}`, `localhost:${port}`]);

  const authorised = (req: IncomingMessage, url: URL): boolean =>
    sameSecret(url.searchParams.get('token'), token) || sameSecret(cookieOf(req, COOKIE), token);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin());
    if (!allowedHosts().has(req.headers.host ?? '')) return refuse(res, 403, 'unknown host');
    if (!authorised(req, url))
      return refuse(res, 401, 'missing or wrong token: open the URL printed at launch');
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method not allowed');
    serveFile(req, res, url, rendererDir, token, port);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', origin());
    const reject = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!allowedHosts().has(req.headers.host ?? '')) return reject('403 Forbidden');
    if (url.pathname !== API_PATH) return reject('404 Not Found');
    if (!authorised(req, url)) return reject('401 Unauthorized');
    const requestOrigin = req.headers.origin;
    if (
      requestOrigin !== undefined &&
      requestOrigin !== origin() &&
      requestOrigin !== `http://localhost:${port}`
    ) {
      return reject('403 Forbidden');
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveApi(ws, options.core));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, LOOPBACK, () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `${origin()}/?token=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One WebSocket client: events out, commands in, every frame validated. */
function serveApi(ws: WebSocket, core: ConsoleCore): void {
  const send = (frame: ServerFrame) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  const unsubscribe = core.subscribe((event) => send({ kind: 'event', event }));
  ws.on('close', unsubscribe);
  ws.on('message', (data, isBinary) => {
    if (isBinary) return send({ kind: 'rejected', reason: 'binary frames are not part of the console API' });
    let json: unknown;
    try {
      json = JSON.parse(data.toString());
    } catch {
      return send({ kind: 'rejected', reason: 'frame is not valid JSON' });
    }
    const frame = clientFrameSchema.safeParse(json);
    if (!frame.success)
      return send({ kind: 'rejected', reason: `malformed frame: ${formatIssues(frame.error)}` });
    void core
      .handle(frame.data.command)
      .then((response) => send({ kind: 'response', id: frame.data.id, response }));
  });
}

function serveFile(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  rendererDir: string,
  token: string,
  port: number,
): void {
  const relative = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
  const file = path.resolve(rendererDir, `.${relative}`);
  if (!file.startsWith(rendererDir + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
    return refuse(res, 404, 'not found');
  }
  res.setHeader('Content-Type', contentTypes[path.extname(file)] ?? 'application/octet-stream');
  res.setHeader(
    'Content-Security-Policy',
    contentSecurityPolicy({ connect: [`ws://${LOOPBACK}:${port}`, `ws://localhost:${port}`] }),
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Set-Cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

/** Constant-time comparison, so the token cannot be guessed byte by byte from timings. */
function sameSecret(candidate: string | null, secret: string): boolean {
  if (candidate === null) return false;
  const a = Buffer.from(candidate);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
