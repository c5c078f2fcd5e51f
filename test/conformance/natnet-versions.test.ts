/**
 * The virtual Motive against what Motive does with NatNet versions (docs/devices.md), in raw bytes
 * as OptiTrack's own client sends them: a unicast client gets frames in the bitstream its CONNECT
 * announced, when that Motive streams it; a multicast stream goes out in the bitstream Motive is
 * set to, whatever a client announces. No client of ours is involved.
 */
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualNatNetServer } from '../../src-main/virtual-lab/natnet-server';
import { MOTIVE_VERSIONS, type MotiveVersion } from '../../src-main/virtual-lab/motive-profile';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** CONNECT as the NatNet SDK sends it: id 0, 264 payload bytes, name[256], app version, NatNet version. */
function connectPacket(natNet: readonly number[]): Buffer {
  const b = Buffer.alloc(4 + 264);
  b.writeUInt16LE(0, 0);
  b.writeUInt16LE(264, 2);
  b.write('NatNetLib', 4, 'latin1');
  Buffer.from([4, 1, 0, 0]).copy(b, 4 + 256);
  Buffer.from(natNet).copy(b, 4 + 260);
  return b;
}

async function motive(version: MotiveVersion, multicast = false, setTo?: [number, number, number, number]) {
  const server = new VirtualNatNetServer({
    rigidBodies: [
      { id: 1, name: 'Tool' },
      { id: 2, name: 'Puck' },
    ],
    commandPort: 0,
    dataPort: 41_573,
    multicast,
    natNetVersion: setTo ?? MOTIVE_VERSIONS[version].natNet,
    newestNatNet: MOTIVE_VERSIONS[version].natNet,
  });
  await server.start(false);
  cleanup.push(() => server.stop());
  return server;
}

/** A raw UDP peer on loopback: every datagram it receives, in order. */
async function peer() {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  cleanup.push(() => new Promise<void>((r) => sock.close(() => r())));
  const got: Buffer[] = [];
  const waiters: (() => void)[] = [];
  sock.on('message', (m) => {
    got.push(m);
    for (const w of waiters.splice(0)) w();
  });
  const next = async (id: number): Promise<Buffer> => {
    for (;;) {
      const i = got.findIndex((m) => m.readUInt16LE(0) === id);
      if (i >= 0) return got.splice(i, 1)[0]!;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { sock, next };
}

/** SERVERINFO's NatNet version: the four bytes after name[256] and the app version. */
const serverInfoNatNet = (p: Buffer): number[] => [...p.subarray(4 + 260, 4 + 264)];

/**
 * Where the rigid-body count sits tells the layout: NatNet 3.x puts it after the marker-set and
 * legacy-marker counts (byte 16 of the packet), 4.1 puts a byte size after every count (byte 24).
 */
function rigidBodyCountAt(frame: Buffer, n: number): number {
  return [16, 24].find((at) => frame.readInt32LE(at) === n) ?? -1;
}

describe('virtual Motive: NatNet bitstreams by version', () => {
  it("CONNECT's version decides a unicast stream's bitstream", async () => {
    const server = await motive('3.1');
    const old = await peer();
    const current = await peer();
    old.sock.send(connectPacket([3, 0, 0, 0]), server.commandPort, '127.0.0.1');
    current.sock.send(connectPacket([4, 1, 0, 0]), server.commandPort, '127.0.0.1');
    expect(serverInfoNatNet(await old.next(1))).toEqual([3, 0, 0, 0]);
    expect(serverInfoNatNet(await current.next(1))).toEqual([4, 1, 0, 0]);
    server.step();
    const f30 = await old.next(7);
    const f41 = await current.next(7);
    expect(f30.readInt32LE(4)).toBe(f41.readInt32LE(4)); // the same frame number
    expect(rigidBodyCountAt(f30, 2)).toBe(16);
    expect(rigidBodyCountAt(f41, 2)).toBe(24);
    expect(f41.readInt32LE(28)).toBe(2 * 38); // 4.1: the rigid-body section's byte size
    // Each rigid body is 38 bytes in both: id 1 first.
    expect(f30.readInt32LE(20)).toBe(1);
    expect(f41.readInt32LE(32)).toBe(1);
  });

  it('a Motive older than the version asked for streams its own newest, and says so', async () => {
    const server = await motive('2.1');
    const client = await peer();
    client.sock.send(connectPacket([4, 1, 0, 0]), server.commandPort, '127.0.0.1');
    expect(serverInfoNatNet(await client.next(1))).toEqual([3, 0, 0, 0]);
    server.step();
    expect(rigidBodyCountAt(await client.next(7), 2)).toBe(16);
  });

  it('a multicast Motive answers every CONNECT with the bitstream it is set to', async () => {
    const server = await motive('3.1', true, [3, 1, 0, 0]);
    const client = await peer();
    client.sock.send(connectPacket([4, 1, 0, 0]), server.commandPort, '127.0.0.1');
    const info = await client.next(1);
    expect(serverInfoNatNet(info)).toEqual([3, 1, 0, 0]);
    expect(info.readUInt8(4 + 264 + 8 + 2)).toBe(1); // isMulticast
  });
});
