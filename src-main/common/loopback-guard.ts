/**
 * The guard every local server of Parapush stands behind (web mode's page and API, the Foxglove
 * live view and `log serve`): it listens on 127.0.0.1 only, answers only requests whose Host names
 * that address (or localhost) on its port, so a site that points its own name at 127.0.0.1 (DNS
 * rebinding) is refused, and a WebSocket needs the per-launch token in its URL and, when a browser
 * opens it, an Origin the server allows (a page of another site cannot open it). Every request is
 * untrusted input: nothing here throws; a refusal is a 4xx status. A WebSocket client that stops
 * reading is cut off once MAX_BUFFERED_BYTES wait for it, so it cannot grow the process's memory.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

export const LOOPBACK = '127.0.0.1';
/**
 * Bytes queued for one WebSocket client past which it is disconnected. Each server sends at most
 * tens of kB/s, so a client this far behind has stopped reading.
 */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** A fresh per-launch secret, safe in a URL's query. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The origins a server on 127.0.0.1:`port` is reached by: its own pages' origins. */
export function loopbackOrigins(port: number): Set<string> {
  return new Set([`http://${LOOPBACK}:${port}`, `http://localhost:${port}`]);
}

export type Admission = { ok: true; url: URL } | { ok: false; status: 400 | 403; message: string };

/**
 * Checks the Host header and parses the request target of an untrusted request to the server on
 * `port`. Only the origin form ('/path?query') is accepted: the absolute form ('http://[ ...') and
 * backslash tricks that the URL parser would read as another host are 400.
 */
export function admitRequest(req: IncomingMessage, port: number): Admission {
  const host = req.headers.host ?? '';
  const base = `http://${host}`;
  if (!loopbackOrigins(port).has(base)) return { ok: false, status: 403, message: 'unknown host' };
  const target = req.url ?? '';
  let url: URL | null = null;
  try {
    if (target.startsWith('/')) url = new URL(target, base);
  } catch {
    // An unparsable target: answered below like any other malformed one.
  }
  if (url?.origin !== base) return { ok: false, status: 400, message: 'malformed request target' };
  return { ok: true, url };
}

export interface UpgradeRules {
  /** The server's port (127.0.0.1). */
  port: number;
  /** The one path a WebSocket opens on. */
  path: string;
  token: string;
  /** Origins a browser page may open it from; a client that sends none (not a browser) may. */
  origins: ReadonlySet<string>;
}

export type UpgradeAdmission = { ok: true; url: URL } | { ok: false; status: 400 | 401 | 403 | 404 };

/** Whether a WebSocket upgrade may go ahead: Host, target, path, token, Origin, in that order. */
export function admitUpgrade(req: IncomingMessage, rules: UpgradeRules): UpgradeAdmission {
  const admission = admitRequest(req, rules.port);
  if (!admission.ok) return { ok: false, status: admission.status };
  if (admission.url.pathname !== rules.path) return { ok: false, status: 404 };
  if (!sameSecret(admission.url.searchParams.get('token'), rules.token)) return { ok: false, status: 401 };
  const origin = req.headers.origin;
  if (origin !== undefined && !rules.origins.has(origin)) return { ok: false, status: 403 };
  return admission;
}

/**
 * Takes charge of a socket handed over for an upgrade: Node stops watching it then, and a peer
 * reset before the handshake ends would otherwise be an unhandled 'error' event, which ends the
 * process.
 */
export function watchUpgradeSocket(socket: Duplex): void {
  socket.on('error', () => socket.destroy());
}

/** Answers an upgrade with `status` and closes the connection. */
export function rejectUpgrade(socket: Duplex, status: number): void {
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Sends `data` to an open client unless more than `maxBuffered` bytes already wait for it; then the
 * client is cut off (a close frame would queue behind what it is not reading). False when nothing
 * was sent.
 */
export function sendWithin(
  ws: WebSocket,
  data: Parameters<WebSocket['send']>[0],
  maxBuffered: number,
): boolean {
  if (ws.readyState !== ws.OPEN) return false;
  if (ws.bufferedAmount > maxBuffered) {
    ws.terminate();
    return false;
  }
  ws.send(data);
  return true;
}

/** Constant-time comparison, so the token cannot be guessed byte by byte from timings. */
export function sameSecret(candidate: string | null, secret: string): boolean {
  if (candidate === null) return false;
  const a = Buffer.from(candidate);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
