/**
 * The NatNet client of the main process. It connects to Motive (or the virtual server) on the
 * command port, learns the stream from SERVERINFO (NatNet version, multicast or unicast, data
 * port, clock frequency), asks for model definitions (rigid-body names), keeps a unicast stream
 * alive, syncs clocks with echo requests and turns every frame into a MocapSnapshot with named
 * rigid bodies. Bad packets are counted in the stats and reported, never thrown.
 *
 * Network input is untrusted: only packets from the server's address are read (anyone on the
 * network can send UDP to our ports), and a SERVERINFO that announces a data path we cannot set
 * up (a group that is not multicast, no data port, a join that fails) becomes a NatNetLinkError:
 * connect() rejects with it, or, once connected, a 'linkError' event carries it.
 */
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { nowNs, nowSeconds } from './clock';
import { ClockSync } from './clock-sync';
import { DEFAULT_COMMAND_PORT, DEFAULT_MULTICAST_GROUP, MessageId } from './message-ids';
import type { FrameOfData } from './messages/frame';
import { trackingValid } from './messages/frame';
import { rigidBodyNames, type ModelDefinitions } from './messages/model-def';
import type { ServerInfo } from './messages/server-info';
import { noAnswerProblem } from './motive-settings';
import { decodePacket, encodePacket, type NatNetMessage } from './packet';
import type { MocapSnapshot } from './scene-binding';
import { StatsTracker, type MocapStats } from './stats';
import {
  ANNOUNCED_VERSION,
  canDecode,
  formatVersion,
  streamVersionProblem,
  type NatNetVersion,
} from './version';

export interface NatNetClientOptions {
  /** Motive's address (the command port is asked for SERVERINFO there). */
  serverAddress: string;
  commandPort?: number;
  /** Local interface: the command socket binds here and multicast is joined on it. */
  localAddress: string;
  /** Where the multicast data socket binds ('0.0.0.0' receives the group on any interface). */
  multicastBindAddress?: string;
  /** Client name sent in CONNECT. */
  clientName?: string;
  /** NatNet version the client announces in CONNECT (a unicast stream comes in it). */
  natNetVersion?: NatNetVersion;
  keepAliveMs?: number;
  echoIntervalMs?: number;
  /** CONNECT is repeated at this interval until SERVERINFO arrives. */
  connectRetryMs?: number;
  /**
   * After this long without a frame, CONNECT is sent again: a restarted Motive has forgotten its
   * unicast clients (while still answering echo) and answers with its new SERVERINFO.
   */
  reconnectAfterMs?: number;
}

export interface NatNetClientEvents {
  serverInfo: (info: ServerInfo) => void;
  modelDef: (defs: ModelDefinitions) => void;
  frame: (frame: FrameOfData, snapshot: MocapSnapshot) => void;
  decodeError: (error: string, messageId: number | undefined) => void;
  message: (text: string) => void;
  /** The data path announced by the server cannot be used: no frames will arrive. */
  linkError: (error: NatNetLinkError) => void;
}

export class NatNetLinkError extends Error {
  override name = 'NatNetLinkError';
}

/** True for an IPv4 address in 224.0.0.0/4, the only addresses a multicast group can have. */
export function isMulticastIPv4(address: string): boolean {
  if (!net.isIPv4(address)) return false;
  const first = Number(address.split('.')[0]);
  return first >= 224 && first <= 239;
}

/** Why the data path a SERVERINFO announces cannot be set up, or undefined when it can. */
export function serverInfoProblem(info: ServerInfo): string | undefined {
  const version = streamVersionProblem(info.natNetVersion);
  if (version) return version;
  if (!info.multicast) return undefined;
  const group = info.multicastAddress || DEFAULT_MULTICAST_GROUP;
  if (!isMulticastIPv4(group))
    return `the server announced multicast group ${group}, which is not a multicast address (224.0.0.0/4)`;
  if (info.dataPort === 0) return 'the server announced multicast without a data port';
  return undefined;
}

type Listeners = { [K in keyof NatNetClientEvents]: NatNetClientEvents[K][] };

/** A model-definition request still unanswered after this long is sent again (s). */
const MODELDEF_RETRY_S = 1;
/** Never ask more often than this, however many frames carry the models-changed flag (s). */
const MODELDEF_MIN_SPACING_S = 0.1;

export class NatNetClient {
  private readonly opts: Required<NatNetClientOptions>;
  private command: dgram.Socket | undefined;
  private data: dgram.Socket | undefined;
  private dataKey = '';
  private timers: NodeJS.Timeout[] = [];
  private readonly listeners: Listeners = {
    serverInfo: [],
    modelDef: [],
    frame: [],
    decodeError: [],
    message: [],
    linkError: [],
  };
  private readonly stats = new StatsTracker();
  private readonly clock = new ClockSync();
  private readonly echoSent = new Map<bigint, number>();
  private pendingResponse: { resolve: (b: Uint8Array) => void; reject: (e: Error) => void } | undefined;
  private requestChain: Promise<unknown> = Promise.resolve();
  private names = new Map<number, string>();
  private lastModelDefRequest = -Infinity;
  private modelDefPending = false;
  private lastFrameAt = 0;
  private connectedWaiters: { resolve: (info: ServerInfo) => void; reject: (e: Error) => void }[] = [];
  /** The server's IP address (serverAddress resolved): packets from anywhere else are dropped. */
  private serverIp: string | undefined;
  serverInfo: ServerInfo | undefined;
  modelDefs: ModelDefinitions | undefined;

  constructor(options: NatNetClientOptions) {
    this.opts = {
      commandPort: DEFAULT_COMMAND_PORT,
      multicastBindAddress: '0.0.0.0',
      clientName: 'Parapush',
      natNetVersion: ANNOUNCED_VERSION,
      keepAliveMs: 1000,
      echoIntervalMs: 1000,
      connectRetryMs: 1000,
      reconnectAfterMs: 2000,
      ...options,
    };
  }

  on<K extends keyof NatNetClientEvents>(event: K, fn: NatNetClientEvents[K]): () => void {
    (this.listeners[event] as NatNetClientEvents[K][]).push(fn);
    return () => {
      const list = this.listeners[event] as NatNetClientEvents[K][];
      list.splice(list.indexOf(fn), 1);
    };
  }

  private emit<K extends keyof NatNetClientEvents>(
    event: K,
    ...args: Parameters<NatNetClientEvents[K]>
  ): void {
    for (const fn of this.listeners[event] as ((...a: Parameters<NatNetClientEvents[K]>) => void)[])
      fn(...args);
  }

  /** The NatNet version frames are decoded with: the server's, once known. */
  get version(): NatNetVersion {
    return this.serverInfo?.natNetVersion ?? this.opts.natNetVersion;
  }

  getStats(): MocapStats {
    return this.stats.snapshot(this.clock.minRoundTrip);
  }

  /** local = server + offset (s), from echo; undefined before the first echo. */
  get clockOffset(): number | undefined {
    return this.clock.offset;
  }

  /** Opens the sockets and resolves with SERVERINFO (rejects after timeoutMs). */
  async connect(timeoutMs = 5000): Promise<ServerInfo> {
    if (this.command) throw new Error('already connected');
    this.serverIp = await resolveIPv4(this.opts.serverAddress);
    const sock = dgram.createSocket('udp4');
    this.command = sock;
    sock.on('message', (msg, rinfo) => this.handle(msg, rinfo));
    sock.on('error', (err) => this.emit('decodeError', `command socket: ${err.message}`, undefined));
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(0, this.opts.localAddress, () => {
        sock.off('error', reject);
        resolve();
      });
    });
    const connected = new Promise<ServerInfo>((resolve, reject) =>
      this.connectedWaiters.push({ resolve, reject }),
    );
    this.sendConnect();
    const retry = setInterval(() => {
      if (!this.serverInfo) this.sendConnect();
    }, this.opts.connectRetryMs);
    this.timers.push(retry);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(noAnswerProblem(`${this.opts.serverAddress}:${this.opts.commandPort}`))),
        timeoutMs,
      );
    });
    try {
      const info = await Promise.race([connected, timeout]);
      this.startTimers();
      return info;
    } catch (err) {
      await this.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const socks = [this.command, this.data].filter((s): s is dgram.Socket => s !== undefined);
    if (this.command && this.serverInfo && !this.serverInfo.multicast) this.send({ kind: 'disconnect' });
    this.command = undefined;
    this.data = undefined;
    this.dataKey = '';
    this.pendingResponse?.reject(new Error('client closed'));
    this.pendingResponse = undefined;
    await Promise.all(socks.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  /** Sends a REQUEST and resolves with the RESPONSE bytes (requests are answered in order). */
  request(command: string, timeoutMs = 2000): Promise<Uint8Array> {
    const run = (): Promise<Uint8Array> =>
      new Promise<Uint8Array>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pendingResponse = undefined;
          reject(new Error(`no response to "${command}"`));
        }, timeoutMs);
        this.pendingResponse = {
          resolve: (b) => (clearTimeout(timer), resolve(b)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        };
        this.send({ kind: 'request', command });
      });
    const next = this.requestChain.then(run, run);
    this.requestChain = next.catch(() => undefined);
    return next;
  }

  requestModelDefinitions(): void {
    this.lastModelDefRequest = nowSeconds();
    this.modelDefPending = true;
    this.send({ kind: 'requestModelDef' });
  }

  private send(m: NatNetMessage): void {
    this.command?.send(encodePacket(m, this.version), this.opts.commandPort, this.opts.serverAddress);
  }

  private sendConnect(): void {
    this.send({
      kind: 'connect',
      name: this.opts.clientName,
      appVersion: [0, 1, 0, 0],
      natNetVersion: this.opts.natNetVersion,
      options: new Uint8Array(0),
    });
  }

  private sendEcho(): void {
    const t = nowNs();
    this.echoSent.set(t, Number(t) / 1e9);
    if (this.echoSent.size > 64) this.echoSent.delete(this.echoSent.keys().next().value!);
    this.send({ kind: 'echoRequest', clientTime: t });
  }

  private startTimers(): void {
    this.lastFrameAt = nowSeconds();
    this.sendEcho();
    this.timers.push(setInterval(() => this.sendEcho(), this.opts.echoIntervalMs));
    this.timers.push(
      setInterval(() => {
        if (this.serverInfo && !this.serverInfo.multicast) this.send({ kind: 'keepAlive' });
      }, this.opts.keepAliveMs),
    );
    this.timers.push(
      setInterval(
        () => {
          if (nowSeconds() - this.lastFrameAt > this.opts.reconnectAfterMs / 1000) this.sendConnect();
        },
        Math.max(10, this.opts.reconnectAfterMs / 2),
      ),
    );
  }

  /**
   * Sets up (or moves) the data path the server announced: multicast group + port, or unicast.
   * Rejects with NatNetLinkError when the path cannot be set up.
   */
  private async applyServerInfo(info: ServerInfo): Promise<void> {
    const problem = serverInfoProblem(info);
    if (problem) throw new NatNetLinkError(problem);
    const key = info.multicast
      ? `${info.multicastAddress || DEFAULT_MULTICAST_GROUP}:${info.dataPort}`
      : 'unicast';
    if (key === this.dataKey) return;
    this.dataKey = key;
    const old = this.data;
    this.data = undefined;
    if (old) old.close();
    if (!info.multicast) {
      // Unicast frames come to the command socket; tell the server we are here.
      this.send({ kind: 'keepAlive' });
      return;
    }
    const sock = await this.joinGroup(info.multicastAddress || DEFAULT_MULTICAST_GROUP, info.dataPort);
    // A newer SERVERINFO moved the data path while this one was joining: it owns the socket now.
    if (this.dataKey !== key || !this.command) {
      sock.close();
      return;
    }
    this.data = sock;
  }

  /** A data socket bound to the port and joined to the group; rejects (socket closed) on failure. */
  private async joinGroup(group: string, port: number): Promise<dgram.Socket> {
    const sock = dgram.createSocket({ type: 'udp4', reuseAddr: true });
    try {
      await new Promise<void>((resolve, reject) => {
        sock.once('error', reject);
        sock.bind(port, this.opts.multicastBindAddress, () => {
          sock.off('error', reject);
          resolve();
        });
      });
      sock.addMembership(group, this.opts.localAddress);
    } catch (err) {
      sock.close();
      throw new NatNetLinkError(
        `cannot join multicast group ${group}:${port} on ${this.opts.localAddress}: ${(err as Error).message}`,
      );
    }
    sock.on('message', (msg, rinfo) => this.handle(msg, rinfo));
    sock.on('error', (err) => this.emit('decodeError', `data socket: ${err.message}`, undefined));
    return sock;
  }

  /** The data path is down: forget it (a later SERVERINFO may fix it) and tell whoever waits. */
  private linkFailed(err: unknown): void {
    const error = err instanceof NatNetLinkError ? err : new NatNetLinkError(String(err));
    this.dataKey = '';
    for (const w of this.connectedWaiters.splice(0)) w.reject(error);
    this.emit('linkError', error);
  }

  private handle(packet: Buffer, from: dgram.RemoteInfo): void {
    if (from.address !== this.serverIp) {
      this.stats.foreignPacket();
      return;
    }
    const bytes = new Uint8Array(packet.buffer, packet.byteOffset, packet.byteLength);
    // A stream in a bitstream we cannot read was named once (linkError); its frames are not errors.
    if (this.serverInfo && !canDecode(this.version) && versionedMessage(bytes)) return;
    const arrivedAt = nowSeconds();
    // The other messages' layout is the same in every version: read them whatever the stream.
    const result = decodePacket(bytes, canDecode(this.version) ? this.version : ANNOUNCED_VERSION);
    if (!result.ok) {
      this.stats.decodeError(result.error);
      this.emit('decodeError', result.error, result.messageId);
      return;
    }
    const m = result.message;
    switch (m.kind) {
      case 'serverInfo':
        this.onServerInfo(m);
        return;
      case 'modelDef':
        this.modelDefPending = false;
        this.modelDefs = { models: m.models };
        this.names = rigidBodyNames(this.modelDefs);
        this.emit('modelDef', this.modelDefs);
        return;
      case 'frame':
        this.onFrame(m, arrivedAt);
        return;
      case 'echoResponse': {
        const sentAt = this.echoSent.get(m.clientTime);
        const freq = this.serverInfo?.clockFrequency ?? 0;
        if (sentAt !== undefined && freq > 0) {
          this.echoSent.delete(m.clientTime);
          this.clock.add({ sentAt, receivedAt: arrivedAt, serverTime: Number(m.serverTicks) / freq });
        }
        return;
      }
      case 'response':
        this.pendingResponse?.resolve(m.bytes);
        this.pendingResponse = undefined;
        return;
      case 'unrecognizedRequest':
        this.pendingResponse?.reject(new Error('the server did not recognise the request'));
        this.pendingResponse = undefined;
        return;
      case 'messageString':
        this.emit('message', m.text);
        return;
      default:
        return;
    }
  }

  private onServerInfo(info: ServerInfo): void {
    const previous = this.serverInfo;
    this.serverInfo = info;
    const changed =
      !previous ||
      formatVersion(previous.natNetVersion) !== formatVersion(info.natNetVersion) ||
      previous.multicast !== info.multicast ||
      previous.multicastAddress !== info.multicastAddress ||
      previous.dataPort !== info.dataPort;
    if (changed) {
      this.stats.resetRate();
      this.applyServerInfo(info).then(
        () => {
          this.requestModelDefinitions();
          for (const w of this.connectedWaiters.splice(0)) w.resolve(info);
        },
        (err: unknown) => this.linkFailed(err),
      );
    }
    this.emit('serverInfo', info);
  }

  private onFrame(frame: FrameOfData, arrivedAt: number): void {
    this.lastFrameAt = arrivedAt;
    const freq = this.serverInfo?.clockFrequency ?? 0;
    const systemLatency = freq > 0 ? Number(frame.transmit - frame.cameraMidExposure) / freq : undefined;
    const exposureLocal = freq > 0 ? this.clock.toLocal(Number(frame.cameraMidExposure) / freq) : undefined;
    const totalLatency = exposureLocal === undefined ? undefined : arrivedAt - exposureLocal;
    this.stats.frame(frame.frameNumber, arrivedAt, systemLatency, totalLatency);
    // Motive flags changed models; unknown ids mean we missed a change. Ask again, unless an
    // answer is already on its way.
    const unknown = frame.rigidBodies.some((rb) => !this.names.has(rb.id));
    const sinceLast = arrivedAt - this.lastModelDefRequest;
    if (
      (unknown || (frame.params & 0x02) !== 0) &&
      sinceLast > MODELDEF_MIN_SPACING_S &&
      (!this.modelDefPending || sinceLast > MODELDEF_RETRY_S)
    ) {
      this.requestModelDefinitions();
    }
    const snapshot: MocapSnapshot = {
      frameNumber: frame.frameNumber,
      receivedAt: arrivedAt,
      rigidBodies: frame.rigidBodies.map((rb) => ({
        id: rb.id,
        name: this.names.get(rb.id),
        position: rb.position,
        orientation: rb.orientation,
        meanError: rb.meanError,
        trackingValid: trackingValid(rb),
      })),
      ...(systemLatency !== undefined ? { systemLatency } : {}),
    };
    this.emit('frame', frame, snapshot);
  }
}

/** Frames and model definitions: the messages whose layout hangs on the NatNet version. */
function versionedMessage(bytes: Uint8Array): boolean {
  const id = bytes.byteLength >= 2 ? bytes[0]! | (bytes[1]! << 8) : -1;
  return id === MessageId.FrameOfData || id === MessageId.ModelDef;
}

/** The IPv4 address packets from `host` come from (a name is looked up once, at connect). */
async function resolveIPv4(host: string): Promise<string> {
  if (net.isIPv4(host)) return host;
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch (err) {
    throw new NatNetLinkError(`cannot resolve NatNet server ${host}: ${(err as Error).message}`);
  }
}
