/**
 * Web mode: serves the built console UI and the console API over a WebSocket, on 127.0.0.1
 * only, behind a per-launch random token. The operator opens /?token=...; the page reads the
 * token from its own URL and presents it again on the WebSocket, the only thing that carries
 * authority. No cookie: cookies are scoped by host and not by port, so one would reach every
 * local service on 127.0.0.1. The page's assets (the shipped renderer, no secrets) load without
 * the token. Host and Origin are checked so another site cannot reach the API through the
 * browser (DNS rebinding, cross-site WebSockets): the guard of common/loopback-guard.ts, which the
 * Foxglove live view shares. Every request is untrusted input: nothing a client sends may throw;
 * it gets a 4xx answer or a WebSocket close code instead.
 *
 * Whether a request names the entry page is decided on the file it resolves to (decoded once,
 * normalised), never on the raw path: '/%69ndex.html' or '/%2findex.html' is the entry page too. A
 * client that does not read its events (a stalled tab, a paused debugger) is cut off once
 * MAX_BUFFERED_BYTES wait for it, so it cannot grow this process's memory without bound.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientFrameSchema, formatIssues, type ServerFrame } from '#contract/console-api';
import { contentSecurityPolicy } from '#contract/content-security-policy';
import {
  admitRequest,
  admitUpgrade,
  LOOPBACK,
  loopbackOrigins,
  MAX_BUFFERED_BYTES,
  newToken,
  rejectUpgrade,
  sameSecret,
  sendWithin,
  watchUpgradeSocket,
} from '../common/loopback-guard';
import type { ConsoleCore } from './console-core';
import { ENTRY_PAGE, rendererFile, type RendererFile } from './web-files';

const API_PATH = '/api';
/** Largest WebSocket frame accepted from a client: commands are small (scenes < 1 MB). */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;

/** The part of the console core web mode talks to. */
export type WebConsoleCore = Pick<ConsoleCore, 'subscribe' | 'handle'>;

export interface WebServerOptions {
  core: WebConsoleCore;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; random per launch otherwise. */
  token?: string;
  /**
   * Bytes queued for one WebSocket client before it is disconnected (MAX_BUFFERED_BYTES); its page
   * reports the connection closed and a reload starts it afresh.
   */
  maxBufferedBytes?: number;
}

export interface WebServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? newToken();
  const rendererDir = path.resolve(options.rendererDir);
  const entryFile = path.join(rendererDir, ENTRY_PAGE);
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  let port = 0;
  const origin = () => `http://${LOOPBACK}:${port}`;
  const authorised = (url: URL): boolean => sameSecret(url.searchParams.get('token'), token);

  const server = createServer((req, res) => {
    const admission = admitRequest(req, port);
    if (!admission.ok) return refuse(res, admission.status, admission.message);
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method not allowed');
    const { url } = admission;
    const found = rendererFile(rendererDir, url.pathname);
    if (found.kind === 'bad-request') return refuse(res, 400, found.reason);
    // The entry page asks for the token only to tell an operator with a bare URL what to open.
    // Judged on the file itself (device and inode), so no spelling of its path gets around the
    // check: percent-encoding, doubled slashes, dot segments, another case on macOS, a link.
    if (found.kind === 'file' && sameFile(found.file, entryFile) && !authorised(url))
      return refuse(res, 401, 'missing or wrong token: open the URL printed at launch');
    serveFile(req, res, found, port);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    watchUpgradeSocket(socket);
    // Only the console's own pages may open the API from a browser.
    const admission = admitUpgrade(req, { port, path: API_PATH, token, origins: loopbackOrigins(port) });
    if (!admission.ok) return rejectUpgrade(socket, admission.status);
    wss.handleUpgrade(req, socket, head, (ws) => serveApi(ws, options.core, maxBuffered));
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

/**
 * One WebSocket client: events out, commands in, every frame validated. Frames the ws library
 * refuses (over MAX_FRAME_BYTES, text that is not UTF-8) close the connection with 1009 or 1007;
 * the 'error' listener is what keeps that from being an unhandled error that ends the process.
 */
function serveApi(ws: WebSocket, core: WebConsoleCore, maxBuffered: number): void {
  const send = (frame: ServerFrame) => void sendWithin(ws, JSON.stringify(frame), maxBuffered);
  const unsubscribe = core.subscribe((event) => send({ kind: 'event', event }));
  ws.on('close', unsubscribe);
  // The library has already sent the close frame with the reason; nothing is left to do.
  ws.on('error', () => undefined);
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
    // ConsoleCore.handle never rejects: failures come back as { ok: false } responses.
    void core
      .handle(frame.data.command)
      .then((response) => send({ kind: 'response', id: frame.data.id, response }));
  });
}

function serveFile(req: IncomingMessage, res: ServerResponse, found: RendererFile, port: number): void {
  if (found.kind === 'bad-request') return refuse(res, 400, found.reason);
  if (found.kind === 'not-found') return refuse(res, 404, 'not found');
  res.setHeader('Content-Type', found.contentType);
  res.setHeader(
    'Content-Security-Policy',
    contentSecurityPolicy({ connect: [`ws://${LOOPBACK}:${port}`, `ws://localhost:${port}`] }),
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // The assets load without the token: no other site's page may embed them.
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  if (req.method === 'HEAD') return void res.end();
  // A file that vanishes after the lookup, or a client that goes away, ends this response only.
  pipeline(createReadStream(found.file), res, () => {});
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

/** Whether two paths name one file; when that cannot be told, yes (the token is then asked). */
function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b, { throwIfNoEntry: false });
    return y !== undefined && x.dev === y.dev && x.ino === y.ino;
  } catch {
    return true;
  }
}
