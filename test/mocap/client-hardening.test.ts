/**
 * Hostile or broken network input to the NatNet client: a SERVERINFO announcing a data path that
 * cannot be set up, and packets from senders other than the server. Each must be a clear error or
 * be ignored, never an unhandled rejection (which would end the process).
 */
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isMulticastIPv4,
  NatNetLinkError,
  serverInfoProblem,
  type NatNetClient,
} from '../../src-main/mocap/client';
import { emptyFrame } from '../../src-main/mocap/messages/frame';
import type { ServerInfo } from '../../src-main/mocap/messages/server-info';
import { decodePacket, encodePacket } from '../../src-main/mocap/packet';
import { loopbackClient } from '../helpers/natnet-loopback';

const V31 = [3, 1, 0, 0] as const;

function serverInfo(overrides: Partial<ServerInfo> = {}): ServerInfo {
  return {
    appName: 'test Motive',
    appVersion: [3, 1, 0, 0],
    natNetVersion: [...V31],
    clockFrequency: 10_000_000,
    dataPort: 0,
    multicast: false,
    multicastAddress: '0.0.0.0',
    hasConnectionInfo: true,
    ...overrides,
  };
}

/** A hand-driven server: answers CONNECT with `info()` and remembers the client's address. */
async function fakeServer(info: () => ServerInfo, address = '127.0.0.1') {
  const sock = dgram.createSocket('udp4');
  let client: dgram.RemoteInfo | undefined;
  sock.on('message', (msg, rinfo) => {
    const r = decodePacket(new Uint8Array(msg), [...V31]);
    if (r.ok && r.message.kind === 'connect') {
      client = rinfo;
      sock.send(encodePacket({ kind: 'serverInfo', ...info() }, [...V31]), rinfo.port, rinfo.address);
    }
  });
  await new Promise<void>((resolve) => sock.bind(0, address, resolve));
  return {
    port: sock.address().port,
    get client() {
      return client;
    },
    send: (bytes: Uint8Array) => client && sock.send(bytes, client.port, client.address),
    close: () => new Promise<void>((resolve) => sock.close(() => resolve())),
  };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
const cleanups: (() => Promise<void>)[] = [];
process.on('unhandledRejection', onUnhandled);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  // Give a stray rejection the turn it needs to surface before judging.
  await new Promise((r) => setTimeout(r, 20));
  expect(unhandled).toEqual([]);
  unhandled.length = 0;
});

const clientFor = (port: number, connectRetry = 0.05): NatNetClient =>
  loopbackClient(cleanups, port, { connectRetry });

function frame(n: number): Uint8Array {
  return encodePacket({ kind: 'frame', ...emptyFrame(n) }, [...V31]);
}

describe('NatNet client against hostile input', () => {
  it('knows multicast addresses (224.0.0.0/4) from the rest', () => {
    expect(isMulticastIPv4('239.255.42.99')).toBe(true);
    expect(isMulticastIPv4('224.0.0.1')).toBe(true);
    for (const a of ['0.0.0.0', '10.0.0.1', '223.255.255.255', '240.0.0.1', '255.255.255.255', 'x', ''])
      expect(isMulticastIPv4(a), a).toBe(false);
    expect(
      serverInfoProblem(serverInfo({ multicast: true, multicastAddress: '10.1.2.3', dataPort: 1511 })),
    ).toMatch(/10\.1\.2\.3.*not a multicast address/);
    expect(serverInfoProblem(serverInfo({ multicast: true, multicastAddress: '239.1.1.1' }))).toMatch(
      /data port/,
    );
    expect(serverInfoProblem(serverInfo())).toBeUndefined();
  });

  it.each(['0.0.0.0', '10.0.0.1', '255.255.255.255'])(
    'rejects connect with a link error when SERVERINFO announces multicast group %s',
    async (group) => {
      const server = await fakeServer(() =>
        serverInfo({ multicast: true, multicastAddress: group, dataPort: 41511 }),
      );
      cleanups.push(server.close);
      const client = clientFor(server.port);
      const errors: Error[] = [];
      client.on('linkError', (e) => errors.push(e));
      const err = await client.connect(2000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NatNetLinkError);
      expect((err as Error).message).toContain(`multicast group ${group}`);
      expect(errors).toHaveLength(1);
    },
  );

  it('turns a SERVERINFO that moves to a bad group, in answer to a reconnect, into a linkError event', async () => {
    let info = serverInfo();
    const server = await fakeServer(() => info);
    cleanups.push(server.close);
    // No frames come: the client sends CONNECT again after 200 ms, and the answer moves the stream.
    const client = loopbackClient(cleanups, server.port, { reconnectAfter: 0.2 });
    await client.connect(2000);
    const errors = new Promise<NatNetLinkError>((resolve) => client.on('linkError', resolve));
    info = serverInfo({ multicast: true, multicastAddress: '192.168.1.1', dataPort: 41512 });
    expect((await errors).message).toMatch(/192\.168\.1\.1.*not a multicast address/);
  });

  it('reads frames from the server only: another sender is counted and ignored', async () => {
    const server = await fakeServer(() => serverInfo());
    cleanups.push(server.close);
    const client = clientFor(server.port);
    const frames: number[] = [];
    client.on('frame', (f) => frames.push(f.frameNumber));
    await client.connect(2000);
    const intruder = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => intruder.bind(0, '127.0.0.2', resolve));
    cleanups.push(() => new Promise<void>((resolve) => intruder.close(() => resolve())));
    const target = server.client!;
    // A forged SERVERINFO too: it must not move the data path.
    intruder.send(
      encodePacket(
        { kind: 'serverInfo', ...serverInfo({ multicast: true, multicastAddress: '0.0.0.0', dataPort: 9 }) },
        [...V31],
      ),
      target.port,
      target.address,
    );
    intruder.send(frame(666), target.port, target.address);
    await new Promise((r) => setTimeout(r, 50));
    server.send(frame(1));
    for (let i = 0; i < 100 && frames.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(frames).toEqual([1]);
    expect(client.getStats().foreignPackets).toBe(2);
    expect(client.serverInfo?.multicast).toBe(false);
  });
});
