/**
 * The socket side of a NatNet server: a command socket that answers CONNECT (SERVERINFO),
 * model-definition requests, REQUESTs, ECHO and KEEPALIVE, and a data path that sends frame
 * packets to the multicast group or to every unicast client that connected and keeps alive.
 * What goes into the frames is someone else's job (the virtual server, or capture replay).
 */
import dgram from 'node:dgram';
import { monotonicNanoseconds, monotonicSeconds } from '../common/clock';
import { DEFAULT_MULTICAST_GROUP, MessageId } from '../mocap/message-ids';
import type { ModelDefinitions } from '../mocap/messages/model-def';
import type { ServerInfo } from '../mocap/messages/server-info';
import { float32Bytes } from '../mocap/messages/text';
import { decodePacket, encodePacket, peekMessageId, type NatNetMessage } from '../mocap/packet';
import { formatVersion, type NatNetVersion } from '../mocap/version';
import { corrupt, NO_FAULTS, SeededRandom, type NatNetFaults } from './natnet-faults';
import { motiveStreamingSchema, reachable, unicastBitstream, type MotiveStreaming } from './motive-profile';

export interface NatNetTransportOptions {
  /** Address the command socket binds to (and unicast frames leave from). */
  address: string;
  /** 0 picks a free port (see commandPort after start()). */
  commandPort: number;
  dataPort: number;
  multicast: boolean;
  multicastGroup?: string;
  /** Interface multicast leaves from. */
  multicastInterface?: string;
  multicastTtl?: number;
  /** The bitstream Motive is set to: the multicast stream's, and a unicast client's that asks for none. */
  natNetVersion: NatNetVersion;
  /** The newest bitstream this Motive knows (default natNetVersion): the most a unicast client gets. */
  newestNatNet?: NatNetVersion;
  /** Settings > Streaming (default: enabled on the lab network, Motive on a PC of its own). */
  streaming?: Partial<MotiveStreaming>;
  appName?: string;
  appVersion?: NatNetVersion;
  /** Server clock ticks per second (frame times and echo answers). */
  clockFrequency?: number;
  /** A unicast client that sends nothing for this long is dropped (s). */
  clientTimeout?: number;
}

export interface NatNetTransportHandlers {
  modelDefinitions(): ModelDefinitions;
  frameRate(): number;
  /** The latest frame packet in bitstream `v`, for REQUEST_FRAMEOFDATA. */
  latestFrame?(v: NatNetVersion): Uint8Array | undefined;
}

interface UnicastClient {
  address: string;
  port: number;
  lastSeen: number;
  /** The bitstream this client gets (what it announced in CONNECT, if Motive streams it). */
  version: NatNetVersion;
}

/** A frame to send: its packet in the stream's bitstream, and the frame in any other. */
interface OutgoingFrame {
  packet: Uint8Array;
  encode?: (v: NatNetVersion) => Uint8Array;
  corrupted: boolean;
}

export class NatNetServerTransport {
  private command: dgram.Socket | undefined;
  private multicastSocket: dgram.Socket | undefined;
  private readonly clients = new Map<string, UnicastClient>();
  private faults: NatNetFaults = NO_FAULTS;
  private random = new SeededRandom(NO_FAULTS.seed);
  private readonly pending = new Set<NodeJS.Timeout>();
  /** A frame held back by reordering: it goes out after the next one. */
  private heldBack: OutgoingFrame | undefined;
  /** Motive is not running (setDown): nothing is sent or answered. */
  private down = false;
  private readonly startNs = monotonicNanoseconds();
  private readonly streaming: MotiveStreaming;
  readonly clockFrequency: number;
  /** Counters for tests and the status line. */
  readonly counts = {
    framesSent: 0,
    framesDropped: 0,
    framesReordered: 0,
    packetsCorrupted: 0,
    requests: 0,
    echoes: 0,
    badPackets: 0,
  };

  constructor(
    private readonly opts: NatNetTransportOptions,
    private readonly handlers: NatNetTransportHandlers,
  ) {
    this.clockFrequency = opts.clockFrequency ?? 10_000_000;
    this.streaming = motiveStreamingSchema.parse(opts.streaming ?? {});
  }

  /** The client at `address:port` can hear this Motive (its streaming settings allow it). */
  private get heard(): boolean {
    return !this.down && reachable(this.streaming);
  }

  /** The bitstream a peer gets: its own as a unicast client, else the one Motive is set to. */
  private versionFor(rinfo: { address: string; port: number }): NatNetVersion {
    return this.clients.get(`${rinfo.address}:${rinfo.port}`)?.version ?? this.opts.natNetVersion;
  }

  /** What a unicast client is streamed, by the peer key "address:port" (tests and status). */
  clientVersions(): Map<string, string> {
    return new Map([...this.clients].map(([k, c]) => [k, formatVersion(c.version)]));
  }

  get commandPort(): number {
    return this.command?.address().port ?? this.opts.commandPort;
  }

  get unicastClients(): number {
    return this.clients.size;
  }

  get version(): NatNetVersion {
    return this.opts.natNetVersion;
  }

  setFaults(faults: NatNetFaults): void {
    this.faults = faults;
    this.random = new SeededRandom(faults.seed);
  }

  /** The server clock now, in ticks of clockFrequency (starts at 0 when the server starts). */
  ticks(): bigint {
    return this.ticksAt(monotonicNanoseconds());
  }

  /** The server clock at local monotonic time `ns` (common/clock monotonicNanoseconds), in ticks. */
  ticksAt(ns: bigint): bigint {
    return ((ns - this.startNs) * BigInt(this.clockFrequency)) / 1_000_000_000n;
  }

  /** SERVERINFO as a client gets it: `version` is the bitstream it will be streamed. */
  serverInfo(version: NatNetVersion = this.opts.natNetVersion): ServerInfo {
    return {
      appName: this.opts.appName ?? 'Parapush virtual Motive',
      appVersion: this.opts.appVersion ?? [3, 1, 0, 0],
      natNetVersion: version,
      clockFrequency: this.clockFrequency,
      dataPort: this.opts.dataPort,
      multicast: this.opts.multicast,
      multicastAddress: this.opts.multicastGroup ?? DEFAULT_MULTICAST_GROUP,
      hasConnectionInfo: true,
    };
  }

  async start(): Promise<void> {
    const sock = dgram.createSocket('udp4');
    sock.on('message', (msg, rinfo) => this.onCommand(msg, rinfo));
    sock.on('error', () => this.counts.badPackets++);
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(this.opts.commandPort, this.opts.address, () => {
        sock.off('error', reject);
        resolve();
      });
    });
    this.command = sock;
    if (this.opts.multicast) {
      const mc = dgram.createSocket('udp4');
      await new Promise<void>((resolve) =>
        mc.bind(0, this.opts.multicastInterface ?? this.opts.address, () => resolve()),
      );
      mc.setMulticastInterface(this.opts.multicastInterface ?? this.opts.address);
      mc.setMulticastTTL(this.opts.multicastTtl ?? 1);
      mc.setMulticastLoopback(true);
      this.multicastSocket = mc;
    }
  }

  async stop(): Promise<void> {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
    const socks = [this.command, this.multicastSocket].filter((s): s is dgram.Socket => s !== undefined);
    this.command = undefined;
    this.multicastSocket = undefined;
    this.clients.clear();
    await Promise.all(socks.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  /**
   * Motive quits (true) or runs again (false). While down nothing is sent and no request is
   * answered (its ports are closed); a restarted Motive has forgotten its unicast clients, which
   * must send CONNECT again before frames reach them.
   */
  setDown(down: boolean): void {
    this.down = down;
    if (!down) return;
    this.clients.clear();
    this.heldBack = undefined;
  }

  /**
   * Sends one frame packet (in the bitstream Motive is set to) to the stream, through the
   * packet-level faults; `encode` gives the same frame in another bitstream for a unicast client
   * that asked for one (a replayed capture has none: its clients get its packets as they are).
   */
  sendFrame(packet: Uint8Array, encode?: (v: NatNetVersion) => Uint8Array): void {
    if (!this.heard) return;
    if (this.faults.dropRate > 0 && this.random.uniform() < this.faults.dropRate) {
      this.counts.framesDropped++;
      return;
    }
    const out: OutgoingFrame = { packet, ...(encode ? { encode } : {}), corrupted: false };
    if (this.faults.corruptRate > 0 && this.random.uniform() < this.faults.corruptRate) {
      out.packet = corrupt(packet, this.random);
      out.corrupted = true;
      this.counts.packetsCorrupted++;
    }
    this.counts.framesSent++;
    if (
      this.heldBack === undefined &&
      this.faults.reorderRate > 0 &&
      this.random.uniform() < this.faults.reorderRate
    ) {
      this.heldBack = out;
      this.counts.framesReordered++;
      return;
    }
    const late = this.heldBack;
    this.heldBack = undefined;
    this.later(() => {
      this.deliver(out);
      if (late) this.deliver(late);
    });
  }

  private deliver(frame: OutgoingFrame): void {
    if (this.opts.multicast) {
      this.multicastSocket?.send(
        frame.packet,
        this.opts.dataPort,
        this.opts.multicastGroup ?? DEFAULT_MULTICAST_GROUP,
      );
      return;
    }
    this.dropSilentClients();
    const streamed = this.opts.natNetVersion;
    for (const c of this.clients.values()) {
      const own = frame.encode && formatVersion(c.version) !== formatVersion(streamed);
      const bytes = own ? frame.encode!(c.version) : frame.packet;
      // A corrupted frame is corrupted in whichever bitstream it goes out.
      const packet = own && frame.corrupted ? corrupt(bytes, this.random) : bytes;
      this.command?.send(packet, c.port, c.address);
    }
  }

  private later(fn: () => void): void {
    if (this.faults.latency <= 0) return fn();
    const t = setTimeout(() => {
      this.pending.delete(t);
      fn();
    }, this.faults.latency * 1000);
    this.pending.add(t);
  }

  private dropSilentClients(): void {
    const limit = this.opts.clientTimeout ?? 5;
    const now = monotonicSeconds();
    for (const [key, c] of this.clients) if (now - c.lastSeen > limit) this.clients.delete(key);
  }

  private reply(m: NatNetMessage, rinfo: dgram.RemoteInfo): void {
    const packet = encodePacket(m, this.versionFor(rinfo));
    this.later(() => this.command?.send(packet, rinfo.port, rinfo.address));
  }

  private onCommand(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (!this.heard) return;
    const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
    const result = decodePacket(bytes, this.opts.natNetVersion);
    let m: NatNetMessage;
    if (result.ok) m = result.message;
    else if (peekMessageId(bytes) === MessageId.Connect) {
      // Clients differ in what they put in CONNECT (some send a short "Ping"); answer them all.
      m = {
        kind: 'connect',
        name: '',
        appVersion: [0, 0, 0, 0],
        natNetVersion: [0, 0, 0, 0],
        options: bytes.slice(4),
      };
    } else {
      this.counts.badPackets++;
      return;
    }
    const key = `${rinfo.address}:${rinfo.port}`;
    if (m.kind === 'disconnect') {
      this.clients.delete(key);
      return;
    }
    if (!this.opts.multicast && (m.kind === 'connect' || this.clients.has(key) || m.kind === 'keepAlive')) {
      const version =
        m.kind === 'connect'
          ? unicastBitstream(
              m.natNetVersion,
              this.opts.newestNatNet ?? this.opts.natNetVersion,
              this.opts.natNetVersion,
            )
          : this.versionFor(rinfo);
      this.clients.set(key, {
        address: rinfo.address,
        port: rinfo.port,
        lastSeen: monotonicSeconds(),
        version,
      });
    }
    switch (m.kind) {
      case 'connect':
        this.reply({ kind: 'serverInfo', ...this.serverInfo(this.versionFor(rinfo)) }, rinfo);
        return;
      case 'requestModelDef':
        this.reply({ kind: 'modelDef', ...this.handlers.modelDefinitions() }, rinfo);
        return;
      case 'echoRequest':
        this.counts.echoes++;
        this.reply({ kind: 'echoResponse', clientTime: m.clientTime, serverTicks: this.ticks() }, rinfo);
        return;
      case 'request':
        this.counts.requests++;
        this.onRequest(m.command, rinfo);
        return;
      case 'requestFrame': {
        const latest = this.handlers.latestFrame?.(this.versionFor(rinfo));
        if (latest) this.later(() => this.command?.send(latest, rinfo.port, rinfo.address));
        return;
      }
      default:
        return;
    }
  }

  private onRequest(command: string, rinfo: dgram.RemoteInfo): void {
    const name = command.split(',')[0]!.trim().toLowerCase();
    if (name === 'framerate')
      this.reply({ kind: 'response', bytes: float32Bytes(this.handlers.frameRate()) }, rinfo);
    // Motive streams metres: one unit is 1000 mm.
    else if (name === 'unitstomillimeters')
      this.reply({ kind: 'response', bytes: float32Bytes(1000) }, rinfo);
    else this.reply({ kind: 'unrecognizedRequest' }, rinfo);
  }
}
