/**
 * A run watched live in Foxglove (or Lichtblick): the session log's channels served over the
 * Foxglove WebSocket protocol with the official `@foxglove/ws-protocol` server. It advertises every
 * channel of the log with the same schema name and JSON Schema the log stores (channels.ts), and
 * sends each message exactly as the recorder writes it (the recorder's tap, recorder.ts), stamped
 * with its log time. So the 3D, Plot, Log and Raw Messages panels show the same data live as they
 * show from the log later.
 *
 * Loopback only: the protocol has no authentication, so anyone who reaches the port sees the run.
 * The server only sends: it takes no client publishing, parameters or services, so a viewer can
 * never reach the robot.
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { FoxgloveServer as FoxgloveServerType } from '@foxglove/ws-protocol';
import { WebSocketServer } from 'ws';
import { channelJsonSchema, schemaName, topics, type Topic } from './channels';
import type { MessageTap } from './recorder';

// A CommonJS package whose named exports Node's ESM loader does not see: required.
const { FoxgloveServer } = createRequire(import.meta.url)(
  '@foxglove/ws-protocol',
) as typeof import('@foxglove/ws-protocol');
type FoxgloveServer = FoxgloveServerType;

/** The port Foxglove suggests for its WebSocket connection. */
export const DEFAULT_FOXGLOVE_PORT = 8765;
const LOOPBACK = '127.0.0.1';
/** Turns the live view on in the desktop console: a port, or "on" for the default one. */
export const FOXGLOVE_PORT_ENV = 'PARAPUSH_FOXGLOVE_PORT';

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

export class FoxgloveLive {
  private readonly channelIds = new Map<Topic, number>();
  /** Channels with at least one subscribed viewer. */
  private subscriptions = 0;

  private constructor(
    private readonly wss: WebSocketServer,
    private readonly server: FoxgloveServer,
    /** The port it listens on (127.0.0.1). */
    readonly port: number,
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

  /** Starts serving on 127.0.0.1:`port` (0 picks a free one); fails if the port is taken. */
  static async start(port = DEFAULT_FOXGLOVE_PORT, name = 'Parapush'): Promise<FoxgloveLive> {
    const server = new FoxgloveServer({ name });
    const wss = new WebSocketServer({
      host: LOOPBACK,
      port,
      handleProtocols: (protocols) => server.handleProtocols(protocols),
    });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    wss.on('connection', (ws, req) =>
      server.handleConnection(ws, `${req.socket.remoteAddress}:${req.socket.remotePort}`),
    );
    return new FoxgloveLive(wss, server, port === 0 ? (wss.address() as AddressInfo).port : port);
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
    return this.wss.address() as AddressInfo;
  }

  /** The address a viewer opens (Foxglove: Open connection, Foxglove WebSocket). */
  get url(): string {
    return `ws://${this.address.address}:${this.port}`;
  }

  /** The recorder's tap: sends the message to the viewers subscribed to its channel. */
  readonly tap: MessageTap = (topic, logTime, data) => {
    const id = this.channelIds.get(topic);
    if (id === undefined) return;
    try {
      this.server.sendMessage(id, logTime, data);
    } catch {
      // A viewer whose connection is closing misses the message; the run and its log go on.
    }
  };

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve, reject) => this.wss.close((err) => (err ? reject(err) : resolve())));
  }
}
