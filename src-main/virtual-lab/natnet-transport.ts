/**
 * The socket side of a NatNet server: a command socket that answers CONNECT (SERVERINFO),
 * model-definition requests, REQUESTs, ECHO and KEEPALIVE, and a data path that sends frame
 * packets to the multicast group or to every unicast client that connected and keeps alive.
 * What goes into the frames is someone else's job (the virtual server, or capture replay).
 */
import dgram from 'node:dgram';
import { nowNs } from '../mocap/clock';
import { DEFAULT_MULTICAST_GROUP, MessageId } from '../mocap/message-ids';
import type { ModelDefinitions } from '../mocap/messages/model-def';
import type { ServerInfo } from '../mocap/messages/server-info';
import { float32Bytes } from '../mocap/messages/text';
import { decodePacket, encodePacket, peekMessageId, type NatNetMessage } from '../mocap/packet';
import type { NatNetVersion } from '../mocap/version';
import { corrupt, NO_FAULTS, SeededRandom, type NatNetFaults } from './natnet-faults';

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
  natNetVersion: NatNetVersion;
  appName?: string;
  appVersion?: NatNetVersion;
  /** Server clock ticks per second (frame times and echo answers). */
  clockFrequency?: number;
  /** A unicast client that sends nothing for this long is dropped (ms). */
  clientTimeoutMs?: number;
}

export interface NatNetTransportHandlers {
  modelDefinitions(): ModelDefinitions;
  frameRate(): number;
  /** The latest frame packet, for REQUEST_FRAMEOFDATA. */
  latestFrame?(): Uint8Array | undefined;
}

interface UnicastClient {
  address: string;
  port: number;
  lastSeen: number;
}

export class NatNetServerTransport {
  private command: dgram.Socket | undefined;
  private multicastSocket: dgram.Socket | undefined;
  private readonly clients = new Map<string, UnicastClient>();
  private faults: NatNetFaults = NO_FAULTS;
  private random = new SeededRandom(NO_FAULTS.seed);
  private readonly pending = new Set<NodeJS.Timeout>();
  /** A frame held back by reordering: it goes out after the next one. */
  private heldBack: Uint8Array | undefined;
  /** Motive is not running (setDown): nothing is sent or answered. */
  private down = false;
  private readonly startNs = nowNs();
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
    return this.ticksAt(nowNs());
  }

  /** The server clock at local monotonic time `ns` (mocap/clock nowNs), in ticks. */
  ticksAt(ns: bigint): bigint {
    return ((ns - this.startNs) * BigInt(this.clockFrequency)) / 1_000_000_000n;
  }

  serverInfo(): ServerInfo {
    return {
      appName: this.opts.appName ?? 'Parapush virtual Motive',
      appVersion: this.opts.appVersion ?? [3, 1, 0, 0],
      natNetVersion: this.opts.natNetVersion,
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

  /** Sends one frame packet to the stream, through the packet-level faults. */
  sendFrame(packet: Uint8Array): void {
    if (this.down) return;
    if (this.faults.dropRate > 0 && this.random.uniform() < this.faults.dropRate) {
      this.counts.framesDropped++;
      return;
    }
    let out = packet;
    if (this.faults.corruptRate > 0 && this.random.uniform() < this.faults.corruptRate) {
      out = corrupt(packet, this.random);
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

  private deliver(packet: Uint8Array): void {
    if (this.opts.multicast) {
      this.multicastSocket?.send(
        packet,
        this.opts.dataPort,
        this.opts.multicastGroup ?? DEFAULT_MULTICAST_GROUP,
      );
      return;
    }
    this.dropSilentClients();
    for (const c of this.clients.values()) this.command?.send(packet, c.port, c.address);
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
    const limit = this.opts.clientTimeoutMs ?? 5000;
    const now = Date.now();
    for (const [key, c] of this.clients) if (now - c.lastSeen > limit) this.clients.delete(key);
  }

  private reply(m: NatNetMessage, rinfo: dgram.RemoteInfo): void {
    const packet = encodePacket(m, this.opts.natNetVersion);
    this.later(() => this.command?.send(packet, rinfo.port, rinfo.address));
  }

  private onCommand(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (this.down) return;
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
      this.clients.set(key, { address: rinfo.address, port: rinfo.port, lastSeen: Date.now() });
    }
    switch (m.kind) {
      case 'connect':
        this.reply({ kind: 'serverInfo', ...this.serverInfo() }, rinfo);
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
        const latest = this.handlers.latestFrame?.();
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
