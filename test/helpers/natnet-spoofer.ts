/**
 * A second sender posing as Motive, as the hardening audit ran it: a socket of its own on Motive's
 * address (loopback), which takes copies of the real frames (as a unicast client of Motive, or from
 * the multicast group), raises their numbers by 2^20 and moves one rigid body, and sends them on:
 * - from its own port: to the client's command socket (probes), to the multicast group, and by
 *   unicast to the data port;
 * - from Motive's own socket (`forged`): the transport's send, which is what a sender that
 *   writes Motive's address and port into its datagrams achieves;
 * plus, every `serverInfoEvery` s, a SERVERINFO nobody asked for that names another multicast
 * group, both ways. Everything goes to 127.0.0.1 only.
 */
import dgram from 'node:dgram';
import { decodePacket, encodePacket } from '../../src-main/mocap/packet';
import type { ServerInfo } from '../../src-main/mocap/messages/server-info';
import type { FrameOfData } from '../../src-main/mocap/messages/frame';
import type { VirtualNatNetServer } from '../../src-main/virtual-lab/natnet-server';

/** How far the spoofer raises frame numbers: the audit's 2^20. */
export const SPOOF_RENUMBER = 2 ** 20;

export interface SpooferOptions {
  /** The real (virtual) Motive: its stream is copied, and its socket carries the forged packets. */
  server: VirtualNatNetServer;
  /** Where the client under attack listens (NatNetClient.localEndpoint). */
  client: { address: string; commandPort: number };
  /** Rigid body id the spoofer moves, and by how much (m, along the streamed x axis). */
  bodyId: number;
  shift: number;
  /** Each way to send, on or off. */
  probes?: boolean;
  forged?: boolean;
  /** A multicast stream's group and data port: copies go there too, and by unicast to the port. */
  multicast?: { group: string; dataPort: number };
  serverInfoEvery?: number;
}

export interface Spoofer {
  /** Packets sent, by way. */
  readonly sent: {
    probes: number;
    forged: number;
    multicast: number;
    unicastData: number;
    serverInfo: number;
  };
  /** Frame numbers the spoofer sent (raised). */
  readonly numbers: Set<number>;
  stop(): Promise<void>;
}

function bind(sock: dgram.Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(port, address, () => {
      sock.off('error', reject);
      resolve();
    });
  });
}

export async function startSpoofer(o: SpooferOptions): Promise<Spoofer> {
  const version = o.server.transport.version;
  const out = dgram.createSocket('udp4');
  await bind(out, 0, '127.0.0.1');
  const sent = { probes: 0, forged: 0, multicast: 0, unicastData: 0, serverInfo: 0 };
  const numbers = new Set<number>();

  const spoof = (f: FrameOfData): Uint8Array => {
    const frameNumber = (f.frameNumber + SPOOF_RENUMBER) | 0;
    numbers.add(frameNumber);
    return encodePacket(
      {
        kind: 'frame',
        ...f,
        frameNumber,
        rigidBodies: f.rigidBodies.map((b) =>
          b.id === o.bodyId ? { ...b, position: [b.position[0] + o.shift, b.position[1], b.position[2]] } : b,
        ),
      },
      version,
    );
  };
  const onReal = (msg: Buffer): void => {
    const r = decodePacket(new Uint8Array(msg), version);
    // Copies of the real stream only: never of its own frames, which Motive's socket also carries.
    if (!r.ok || r.message.kind !== 'frame' || numbers.has(r.message.frameNumber)) return;
    const packet = spoof(r.message);
    if (o.probes ?? true) {
      out.send(packet, o.client.commandPort, o.client.address);
      sent.probes++;
    }
    if (o.forged ?? true) {
      o.server.transport.sendFrame(packet);
      sent.forged++;
    }
    if (o.multicast) {
      out.send(packet, o.multicast.dataPort, o.multicast.group);
      out.send(packet, o.multicast.dataPort, '127.0.0.1');
      sent.multicast++;
      sent.unicastData++;
    }
  };

  // Copies of the real frames: from the group, or as a unicast client of Motive (CONNECT, keep-alive).
  let listen: dgram.Socket;
  const timers: NodeJS.Timeout[] = [];
  if (o.multicast) {
    listen = dgram.createSocket({ type: 'udp4', reuseAddr: true });
    await bind(listen, o.multicast.dataPort, o.multicast.group);
    listen.addMembership(o.multicast.group, '127.0.0.1');
    out.setMulticastInterface('127.0.0.1');
    out.setMulticastLoopback(true);
  } else {
    listen = out;
    const hello = (): void => {
      out.send(
        encodePacket(
          {
            kind: 'connect',
            name: 'spoofer',
            appVersion: [0, 0, 0, 0],
            natNetVersion: version,
            options: new Uint8Array(0),
          },
          version,
        ),
        o.server.commandPort,
        '127.0.0.1',
      );
    };
    hello();
    timers.push(setInterval(hello, 500));
  }
  listen.on('message', onReal);

  const bogusInfo: ServerInfo = {
    ...o.server.transport.serverInfo(),
    multicast: true,
    multicastAddress: '239.1.2.3',
    dataPort: 21511,
  };
  const infoPacket = encodePacket({ kind: 'serverInfo', ...bogusInfo }, version);
  timers.push(
    setInterval(
      () => {
        out.send(infoPacket, o.client.commandPort, o.client.address);
        if (o.forged ?? true) o.server.transport.sendFrame(infoPacket);
        sent.serverInfo++;
      },
      (o.serverInfoEvery ?? 0.2) * 1000,
    ),
  );

  return {
    sent,
    numbers,
    async stop() {
      if (timers.length === 0) return;
      for (const t of timers.splice(0)) clearInterval(t);
      listen.off('message', onReal);
      const socks = listen === out ? [out] : [out, listen];
      await Promise.all(socks.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}
