/**
 * A run watched live in Foxglove (or Lichtblick): the session log's channels served over the
 * Foxglove WebSocket protocol with the official `@foxglove/ws-protocol` server. It advertises every
 * channel of the log with the same schema name and JSON Schema the log stores (channels.ts), and
 * sends each message exactly as the recorder writes it (the recorder's tap, recorder.ts), stamped
 * with its log time. So the 3D, Plot, Log and Raw Messages panels show the same data live as they
 * show from the log later.
 *
 * Behind the guard web mode stands behind (common/loopback-guard.ts), because a web page can open
 * a WebSocket to 127.0.0.1 and the protocol has no authentication of its own: it listens on
 * 127.0.0.1 only, refuses a Host that is not 127.0.0.1 or localhost on its port (DNS rebinding),
 * a URL without the per-launch token (`ws://127.0.0.1:PORT/?token=...`, the URL the console shows
 * and the CLI prints; Foxglove and Lichtblick open a URL with a query as it is given), and a
 * browser Origin it was not told to allow (the desktop apps' `file://` pages are; a web app such as
 * https://app.foxglove.dev only when given). Each viewer's messages are checked and bounded
 * (foxglove-viewer.ts): a bad frame closes that viewer only, a message is at most
 * MAX_VIEWER_MESSAGE_BYTES, a viewer that stops reading is cut off, and at most MAX_VIEWERS watch
 * at once. The server only sends: it takes no client publishing, parameters or services, so a
 * viewer can never reach the robot.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { FoxgloveServer as FoxgloveServerType } from '@foxglove/ws-protocol';
import { WebSocketServer } from 'ws';
import {
  admitUpgrade,
  LOOPBACK,
  MAX_BUFFERED_BYTES,
  newToken,
  rejectUpgrade,
  watchUpgradeSocket,
} from '../common/loopback-guard';
import { channelJsonSchema, schemaName, topics, type Topic } from './channels';
import { FoxgloveViewer } from './foxglove-viewer';
import type { MessageTap } from './recorder';

// A CommonJS package whose named exports Node's ESM loader does not see: required.
const { FoxgloveServer } = createRequire(import.meta.url)(
  '@foxglove/ws-protocol',
) as typeof import('@foxglove/ws-protocol');
type FoxgloveServer = FoxgloveServerType;

/** The port Foxglove suggests for its WebSocket connection. */
export const DEFAULT_FOXGLOVE_PORT = 8765;
/** Turns the live view on in the desktop console: a port, or "on" for the default one. */
export const FOXGLOVE_PORT_ENV = 'PARAPUSH_FOXGLOVE_PORT';
/** Browser origins the desktop console's live view allows besides the desktop apps, comma-separated. */
export const FOXGLOVE_ORIGINS_ENV = 'PARAPUSH_FOXGLOVE_ORIGINS';
/**
 * Largest message a viewer may send: a subscribe to every channel is about 1 kB. Past it the `ws`
 * library closes the connection (1009) on the frame's header, before reading its payload.
 */
export const MAX_VIEWER_MESSAGE_BYTES = 64 * 1024;
/** Viewers at once: one per Foxglove or Lichtblick window, a few at most. */
export const MAX_VIEWERS = 8;
/**
 * The Origin the desktop Foxglove and Lichtblick send: their pages are file:// pages of an
 * Electron app. A web page of any site cannot send it (a local file in a browser sends "null").
 */
export const DESKTOP_APP_ORIGIN = 'file://';
/** The one path the live view serves. */
const PATH = '/';

export interface FoxgloveLiveOptions {
  /** 0 picks a free port; DEFAULT_FOXGLOVE_PORT unless given. */
  port?: number;
  /** The per-launch token; a fresh one unless given (the console keeps one for its launch). */
  token?: string;
  /** Browser origins allowed besides the desktop apps' (foxgloveOrigins checks them). */
  origins?: readonly string[];
}

/**
 * The origins of `--foxglove-origin` (or $PARAPUSH_FOXGLOVE_ORIGINS, comma-separated), each a
 * web origin as a browser sends it, `https://app.foxglove.dev`: a scheme, a host and a port only.
 * "null" is refused: sandboxed frames of any site send it. Throws, naming the first bad one.
 */
export function foxgloveOrigins(values: readonly string[]): string[] {
  const origins = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  for (const origin of origins) {
    let parsed: string | null = null;
    try {
      parsed = new URL(origin).origin;
    } catch {
      // Not a URL: refused below.
    }
    if (parsed !== origin)
      throw new Error(
        `expected an origin such as https://app.foxglove.dev (scheme, host, port; no path), got "${origin}"`,
      );
  }
  return origins;
}

/**
 * The port of a `--foxglove [PORT]` flag or of $PARAPUSH_FOXGLOVE_PORT: null when absent (off),
 * the default port for the flag alone (true), "on" or ""; 0 picks a free port. Throws on anything
 * else, saying what it got.
 */
export function foxglovePort(value: string | boolean | undefined): number | null {
  if (value === undefined || value === false) return null;
  if (value === true || value === '' || value === 'on') return DEFAULT_FOXGLOVE_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new Error(
      `expected a port number 0..65535 (or nothing, for ${DEFAULT_FOXGLOVE_PORT}), got "${value}"`,
    );
  return port;
}

/** The line that tells the user where a viewer connects. */
export function liveViewNotice(url: string): string {
  return `Foxglove live view on ${url} (127.0.0.1 only; the token in the URL is this launch's key: share it with no one)`;
}

export class FoxgloveLive {
  private readonly channelIds = new Map<Topic, number>();
  /** Channels with at least one subscribed viewer. */
  private subscriptions = 0;

  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    private readonly server: FoxgloveServer,
    /** The port it listens on (127.0.0.1). */
    readonly port: number,
    /** The per-launch token a viewer's URL carries. */
    readonly token: string,
  ) {
    server.on('subscribe', () => this.subscriptions++);
    server.on('unsubscribe', () => this.subscriptions--);
    for (const topic of topics)
      this.channelIds.set(
        topic,
        server.addChannel({
          topic,
          encoding: 'json',
          schemaName: schemaName(topic),
          schema: JSON.stringify(channelJsonSchema(topic)),
          schemaEncoding: 'jsonschema',
        }),
      );
  }

  /** Starts serving on 127.0.0.1 (the port of `o`, 0 picks a free one); fails if the port is taken. */
  static async start(o: FoxgloveLiveOptions = {}): Promise<FoxgloveLive> {
    const token = o.token ?? newToken();
    const origins = new Set([DESKTOP_APP_ORIGIN, ...foxgloveOrigins(o.origins ?? [])]);
    const limits = { maxBufferedBytes: MAX_BUFFERED_BYTES };
    const server = new FoxgloveServer({ name: 'Parapush' });
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_VIEWER_MESSAGE_BYTES,
      handleProtocols: (protocols) => server.handleProtocols(protocols),
    });
    // Plain HTTP gets nothing: the live view is a WebSocket.
    const http = createServer((_req, res) => res.writeHead(426, { Connection: 'close' }).end());
    let port = 0;
    http.on('upgrade', (req, socket, head: Buffer) => {
      watchUpgradeSocket(socket);
      const admission = admitUpgrade(req, { port, path: PATH, token, origins });
      if (!admission.ok) return rejectUpgrade(socket, admission.status);
      // The ws library counts a client once its handshake is written, within handleUpgrade.
      if (wss.clients.size >= MAX_VIEWERS) return rejectUpgrade(socket, 503);
      wss.handleUpgrade(req, socket, head, (ws) =>
        server.handleConnection(
          new FoxgloveViewer(ws, limits),
          `${req.socket.remoteAddress}:${req.socket.remotePort}`,
        ),
      );
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(o.port ?? DEFAULT_FOXGLOVE_PORT, LOOPBACK, () => resolve());
    });
    port = (http.address() as AddressInfo).port;
    return new FoxgloveLive(http, wss, server, port, token);
  }

  /** Resolves once viewers have subscribed to `channels` channels (then what is sent reaches someone). */
  subscribed(channels = 1): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.subscriptions < channels) return;
        this.server.off('subscribe', check);
        resolve();
      };
      this.server.on('subscribe', check);
      check();
    });
  }

  /** Where it listens, as the socket says. */
  get address(): AddressInfo {
    return this.http.address() as AddressInfo;
  }

  /** The URL a viewer opens (Foxglove: Open connection, Foxglove WebSocket), token included. */
  get url(): string {
    return `ws://${this.address.address}:${this.port}${PATH}?token=${this.token}`;
  }

  /** Viewers connected now. */
  get viewers(): number {
    return this.wss.clients.size;
  }

  /** The recorder's tap: sends the message to the viewers subscribed to its channel. */
  readonly tap: MessageTap = (topic, logTime, data) => {
    const id = this.channelIds.get(topic);
    if (id === undefined) return;
    try {
      this.server.sendMessage(id, logTime, data);
    } catch {
      // Whatever a viewer's connection does, the run and its log go on.
    }
  };

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.http.close((err) => (err ? reject(err) : resolve())));
  }
}
