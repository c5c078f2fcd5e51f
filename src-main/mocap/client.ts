/**
 * The NatNet client of the main process. It connects to Motive (or the virtual server) on the
 * command port, learns the stream from SERVERINFO (NatNet version, multicast or unicast, data
 * port, clock frequency), asks for model definitions (rigid-body names), keeps a unicast stream
 * alive, syncs clocks with echo requests and turns every frame into a MocapSnapshot with named
 * rigid bodies. Bad packets are counted in the stats and reported, never thrown.
 *
 * Network input is untrusted, and a UDP source address proves nothing (anyone who can reach our
 * ports can write any address into a datagram). The client reads only what a lone Motive sends:
 * - both sockets bind to the mocap interface (the local address on the route to the server), the
 *   multicast data socket to the group itself, so datagrams to any other local address, and
 *   unicast to the data port, never reach it;
 * - the command socket reads only the server's command port; the data socket only the port the
 *   stream comes from, learned from its first frame (again after a reconnect);
 * - SERVERINFO is taken only in answer to an outstanding CONNECT, MODELDEF only when asked, a
 *   RESPONSE only to an outstanding request, frames on the command socket only in unicast.
 * What breaks these rules from the server's address is a sign of a second sender
 * (spoof-signs.ts): counted, reported ('spoofSign'), and carried on the next frame's snapshot so
 * that runs stop and none arms on the stream. Packets from other addresses are counted and
 * dropped. A SERVERINFO that announces a data path we cannot set up (a group that is not
 * multicast, no data port, a join that fails) becomes a NatNetLinkError: connect() rejects with
 * it, or, once connected, a 'linkError' event carries it.
 */
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { monotonicNanoseconds, monotonicSeconds } from '../common/clock';
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
import { bodiesFingerprint } from './frame-order';
import type { SpoofSign } from './spoof-signs';
import { after, every } from '../common/timers';

export interface NatNetClientOptions {
  /** Motive's address (the command port is asked for SERVERINFO there). */
  serverAddress: string;
  commandPort?: number;
  /**
   * Local interface: both sockets bind here and multicast is joined on it. '0.0.0.0' (or none):
   * the interface on the route to the server.
   */
  localAddress?: string;
  /** Client name sent in CONNECT. */
  clientName?: string;
  /** NatNet version the client announces in CONNECT (a unicast stream comes in it). */
  natNetVersion?: NatNetVersion;
  /** Period of KEEPALIVE to a unicast server, s. */
  keepAlive?: number;
  /** Period of ECHOREQUEST (the clock offset to the server), s. */
  echoInterval?: number;
  /** CONNECT is repeated at this interval until SERVERINFO arrives, s. */
  connectRetry?: number;
  /**
   * After this long without a frame, CONNECT is sent again: a restarted Motive has forgotten its
   * unicast clients (while still answering echo) and answers with its new SERVERINFO. In s.
   */
  reconnectAfter?: number;
}

export interface NatNetClientEvents {
  serverInfo: (info: ServerInfo) => void;
  modelDef: (defs: ModelDefinitions) => void;
  frame: (frame: FrameOfData, snapshot: MocapSnapshot) => void;
  decodeError: (error: string, messageId: number | undefined) => void;
  message: (text: string) => void;
  /** The data path announced by the server cannot be used: no frames will arrive. */
  linkError: (error: NatNetLinkError) => void;
  /** Something only a second sender posing as the server would send (spoof-signs.ts). */
  spoofSign: (sign: SpoofSign) => void;
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
const MODELDEF_RETRY = 1;
/** Never ask more often than this, however many frames carry the models-changed flag (s). */
const MODELDEF_MIN_SPACING = 0.1;
/**
 * An answer (SERVERINFO to CONNECT, MODELDEF to its request) is expected at most this long after
 * the latest question (s): later, what is still unanswered is taken as lost, and an answer that
 * comes is one nobody asked for.
 */
const ANSWER_WITHIN = 3;

/** Questions sent and not yet answered, forgotten ANSWER_WITHIN after the latest. */
class Outstanding {
  private count = 0;
  private lastAt = -Infinity;

  asked(at: number): void {
    this.count++;
    this.lastAt = at;
  }

  /**
   * Takes an answer: true if a question was waiting for it. One answer settles every question
   * asked before it (they asked the same); the server's answers to the others come after it, and
   * repeat it.
   */
  answered(at: number): boolean {
    const waiting = this.count > 0 && at - this.lastAt <= ANSWER_WITHIN;
    this.count = 0;
    return waiting;
  }

  get waiting(): boolean {
    return this.count > 0;
  }
}

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
    spoofSign: [],
  };
  private readonly stats = new StatsTracker();
  private readonly clock = new ClockSync();
  private readonly echoSent = new Map<bigint, number>();
  private pendingResponse: { resolve: (b: Uint8Array) => void; reject: (e: Error) => void } | undefined;
  private requestChain: Promise<unknown> = Promise.resolve();
  private names = new Map<number, string>();
  private lastModelDefRequest = -Infinity;
  private readonly modelDefsAsked = new Outstanding();
  private readonly connectsSent = new Outstanding();
  private lastFrameAt = 0;
  /** The local interface both sockets are bound to (options.localAddress, resolved). */
  private localIp = '';
  /** The port the stream's frames come from, once learned; undefined: the next frame's. */
  private dataSourcePort: number | undefined;
  /** A sign seen since the last frame: it goes out on the next frame's snapshot. */
  private unreportedSign: SpoofSign | undefined;
  private connectedWaiters: { resolve: (info: ServerInfo) => void; reject: (e: Error) => void }[] = [];
  /** The server's IP address (serverAddress resolved): packets from anywhere else are dropped. */
  private serverIp: string | undefined;
  serverInfo: ServerInfo | undefined;
  modelDefs: ModelDefinitions | undefined;

  constructor(options: NatNetClientOptions) {
    this.opts = {
      commandPort: DEFAULT_COMMAND_PORT,
      localAddress: '0.0.0.0',
      clientName: 'Parapush',
      natNetVersion: ANNOUNCED_VERSION,
      keepAlive: 1,
      echoInterval: 1,
      connectRetry: 1,
      reconnectAfter: 2,
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

  /**
   * Where the client listens: the interface address, the command socket's port and, for a
   * multicast stream, the data socket's (undefined before connect()).
   */
  get localEndpoint(): { address: string; commandPort: number; dataPort?: number } | undefined {
    if (!this.command) return undefined;
    return {
      address: this.localIp,
      commandPort: this.command.address().port,
      ...(this.data ? { dataPort: this.data.address().port } : {}),
    };
  }

  /** local = server + offset (s), from echo; undefined before the first echo. */
  get clockOffset(): number | undefined {
    return this.clock.offset;
  }

  /** Opens the sockets and resolves with SERVERINFO (rejects after `timeout` s). */
  async connect(timeout = 5): Promise<ServerInfo> {
    if (this.command) throw new Error('already connected');
    this.serverIp = await resolveIPv4(this.opts.serverAddress);
    this.localIp =
      this.opts.localAddress === '0.0.0.0'
        ? await localAddressTowards(this.serverIp, this.opts.commandPort)
        : this.opts.localAddress;
    const sock = dgram.createSocket('udp4');
    this.command = sock;
    sock.on('message', (msg, rinfo) => this.handle(msg, rinfo, 'command'));
    sock.on('error', (err) => this.emit('decodeError', `command socket: ${err.message}`, undefined));
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(0, this.localIp, () => {
        sock.off('error', reject);
        resolve();
      });
    });
    const connected = new Promise<ServerInfo>((resolve, reject) =>
      this.connectedWaiters.push({ resolve, reject }),
    );
    this.sendConnect();
    const retry = every(this.opts.connectRetry, () => {
      if (!this.serverInfo) this.sendConnect();
    });
    this.timers.push(retry);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = after(timeout, () =>
        reject(new Error(noAnswerProblem(`${this.opts.serverAddress}:${this.opts.commandPort}`))),
      );
    });
    try {
      const info = await Promise.race([connected, timedOut]);
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
  request(command: string, timeout = 2): Promise<Uint8Array> {
    const run = (): Promise<Uint8Array> =>
      new Promise<Uint8Array>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pendingResponse = undefined;
          reject(new Error(`no response to "${command}"`));
        }, timeout * 1000);
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
    this.lastModelDefRequest = monotonicSeconds();
    this.modelDefsAsked.asked(this.lastModelDefRequest);
    this.send({ kind: 'requestModelDef' });
  }

  private send(m: NatNetMessage): void {
    this.command?.send(encodePacket(m, this.version), this.opts.commandPort, this.opts.serverAddress);
  }

  private sendConnect(): void {
    this.connectsSent.asked(monotonicSeconds());
    this.send({
      kind: 'connect',
      name: this.opts.clientName,
      appVersion: [0, 1, 0, 0],
      natNetVersion: this.opts.natNetVersion,
      options: new Uint8Array(0),
    });
  }

  private sendEcho(): void {
    const t = monotonicNanoseconds();
    this.echoSent.set(t, Number(t) / 1e9);
    if (this.echoSent.size > 64) this.echoSent.delete(this.echoSent.keys().next().value!);
    this.send({ kind: 'echoRequest', clientTime: t });
  }

  private startTimers(): void {
    this.lastFrameAt = monotonicSeconds();
    this.sendEcho();
    this.timers.push(every(this.opts.echoInterval, () => this.sendEcho()));
    this.timers.push(
      every(this.opts.keepAlive, () => {
        if (this.serverInfo && !this.serverInfo.multicast) this.send({ kind: 'keepAlive' });
      }),
    );
    this.timers.push(
      every(Math.max(0.01, this.opts.reconnectAfter / 2), () => {
        if (monotonicSeconds() - this.lastFrameAt > this.opts.reconnectAfter) this.sendConnect();
      }),
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
    this.dataSourcePort = undefined;
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

  /**
   * A data socket bound to the group and port and joined to the group on the mocap interface;
   * rejects (socket closed) on failure. Bound to the group address, the socket receives only
   * datagrams sent to the group (Linux and macOS): unicast to the data port never reaches it.
   * Windows cannot bind a group address; there it binds the interface.
   */
  private async joinGroup(group: string, port: number): Promise<dgram.Socket> {
    const sock = dgram.createSocket({ type: 'udp4', reuseAddr: true });
    const bindTo = process.platform === 'win32' ? this.localIp : group;
    try {
      await new Promise<void>((resolve, reject) => {
        sock.once('error', reject);
        sock.bind(port, bindTo, () => {
          sock.off('error', reject);
          resolve();
        });
      });
      sock.addMembership(group, this.localIp);
    } catch (err) {
      sock.close();
      throw new NatNetLinkError(
        `cannot join multicast group ${group}:${port} on ${this.localIp}: ${(err as Error).message}`,
      );
    }
    sock.on('message', (msg, rinfo) => this.handle(msg, rinfo, 'data'));
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

  /** A sign of a second sender: counted, reported, and carried on the next frame's snapshot. */
  private spoofSign(kind: SpoofSign['kind'], detail: string, at: number): void {
    const sign: SpoofSign = { kind, detail, at };
    this.stats.spoofSign(sign);
    this.unreportedSign = sign;
    this.emit('spoofSign', sign);
  }

  /**
   * Whether a packet from `from` on `socket` can be the server's: its address, and the port the
   * server sends that kind of packet from. Others are dropped (a second sender at the server's
   * address is a sign).
   */
  private fromServer(from: dgram.RemoteInfo, socket: 'command' | 'data', at: number): boolean {
    if (from.address !== this.serverIp) {
      this.stats.foreignPacket();
      return false;
    }
    if (socket === 'command') {
      if (from.port === this.opts.commandPort) return true;
      this.spoofSign(
        'wrong-port',
        `a packet from ${from.address}:${from.port} on the command socket, where the server answers from port ${this.opts.commandPort}`,
        at,
      );
      return false;
    }
    if (this.dataSourcePort === undefined || from.port === this.dataSourcePort) return true;
    this.spoofSign(
      'wrong-port',
      `a packet from ${from.address}:${from.port} on the data socket, where the stream comes from port ${this.dataSourcePort}`,
      at,
    );
    return false;
  }

  private handle(packet: Buffer, from: dgram.RemoteInfo, socket: 'command' | 'data'): void {
    const arrivedAt = monotonicSeconds();
    if (!this.fromServer(from, socket, arrivedAt)) return;
    const bytes = new Uint8Array(packet.buffer, packet.byteOffset, packet.byteLength);
    // A stream in a bitstream we cannot read was named once (linkError); its frames are not errors.
    if (this.serverInfo && !canDecode(this.version) && versionedMessage(bytes)) return;
    // The other messages' layout is the same in every version: read them whatever the stream.
    const result = decodePacket(bytes, canDecode(this.version) ? this.version : ANNOUNCED_VERSION);
    if (!result.ok) {
      this.stats.decodeError(result.error);
      this.emit('decodeError', result.error, result.messageId);
      return;
    }
    const m = result.message;
    const unsolicited = (what: string): void =>
      this.spoofSign('unsolicited', `${what} from ${from.address}:${from.port}`, arrivedAt);
    if (socket === 'data') {
      // A multicast stream's socket carries frames only.
      if (m.kind !== 'frame') return unsolicited(`a ${m.kind} message on the data socket`);
      this.dataSourcePort ??= from.port;
      this.onFrame(m, arrivedAt);
      return;
    }
    switch (m.kind) {
      case 'serverInfo': {
        const { kind: _kind, ...info } = m;
        if (!this.connectsSent.answered(arrivedAt)) {
          // The server's answer to a CONNECT settled already repeats what it said: nothing changes.
          if (!sameJson(info, this.serverInfo)) unsolicited('a SERVERINFO nobody asked for');
          return;
        }
        this.onServerInfo(info, arrivedAt);
        return;
      }
      case 'modelDef':
        if (!this.modelDefsAsked.answered(arrivedAt)) {
          if (!sameJson({ models: m.models }, this.modelDefs))
            unsolicited('model definitions nobody asked for');
          return;
        }
        this.modelDefs = { models: m.models };
        this.names = rigidBodyNames(this.modelDefs);
        this.emit('modelDef', this.modelDefs);
        return;
      case 'frame':
        // Before SERVERINFO the stream's layout is unknown: a unicast frame that overtook (or
        // outlived a lost) SERVERINFO is dropped. Motive sends a multicast stream's frames to the
        // group, never to the command socket.
        if (!this.serverInfo) return;
        if (this.serverInfo.multicast)
          return unsolicited('a frame on the command socket of a multicast stream');
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
      // An answer to no request changes nothing: it is dropped (a late answer to one that timed
      // out looks the same).
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

  private onServerInfo(info: ServerInfo, at: number): void {
    const previous = this.serverInfo;
    this.serverInfo = info;
    // The answer to a reconnect after silence: a restarted Motive may stream from a new socket.
    if (at - this.lastFrameAt > this.opts.reconnectAfter) this.dataSourcePort = undefined;
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
    this.stats.frame(
      frame.frameNumber,
      arrivedAt,
      systemLatency,
      totalLatency,
      bodiesFingerprint(frame.rigidBodies),
    );
    // Motive flags changed models; unknown ids mean we missed a change. Ask again, unless an
    // answer is already on its way.
    const unknown = frame.rigidBodies.some((rb) => !this.names.has(rb.id));
    const sinceLast = arrivedAt - this.lastModelDefRequest;
    if (
      (unknown || (frame.params & 0x02) !== 0) &&
      sinceLast > MODELDEF_MIN_SPACING &&
      (!this.modelDefsAsked.waiting || sinceLast > MODELDEF_RETRY)
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
      ...(this.unreportedSign ? { suspect: this.unreportedSign } : {}),
    };
    this.unreportedSign = undefined;
    this.emit('frame', frame, snapshot);
  }
}

/** Whether two decoded messages say the same (plain data: numbers, strings, arrays). */
function sameJson(a: unknown, b: unknown): boolean {
  const text = (v: unknown): string =>
    JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  return b !== undefined && text(a) === text(b);
}

/**
 * The local address on the route to `ip`: a UDP socket connected there (which sends nothing) is
 * given the address the kernel would send from.
 */
export async function localAddressTowards(ip: string, port: number): Promise<string> {
  const probe = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.connect(port, ip, () => resolve());
    });
    return probe.address().address;
  } catch (err) {
    throw new NatNetLinkError(`no route to NatNet server ${ip}: ${(err as Error).message}`);
  } finally {
    probe.close();
  }
}

/** Frames and model definitions: the messages whose layout hangs on the NatNet version. */
function versionedMessage(bytes: Uint8Array): boolean {
  const id = bytes.byteLength >= 2 ? bytes[0]! | (bytes[1]! << 8) : -1;
  return id === MessageId.FrameOfData || id === MessageId.ModelDef;
}

/** The IPv4 address packets from `host` come from (a name is looked up once, at connect). */
export async function resolveIPv4(host: string): Promise<string> {
  if (net.isIPv4(host)) return host;
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch (err) {
    throw new NatNetLinkError(`cannot resolve NatNet server ${host}: ${(err as Error).message}`);
  }
}
