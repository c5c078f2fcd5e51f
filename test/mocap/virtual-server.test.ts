/** The virtual NatNet server seen through a raw UDP socket (no client code in between). */
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualNatNetServer } from '../../src-main/virtual-lab/natnet-server';
import { identityCalibration, tableOrientation, tablePoint } from '../../src-main/calibration/mocap-table';
import { decodePacket, encodePacket, type NatNetMessage } from '../../src-main/mocap/packet';
import { yawOf } from '../../src-main/common/rotation';
import { parseScene } from '#contract/scene-file';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const scene = parseScene({
  name: 'two',
  table: { size: { x: 1, y: 1 }, friction: 0.8 },
  pusher: { radius: 0.0145, height: 0.11, position: { x: -0.2, y: 0.05 }, rigidBody: 'Tool' },
  sliders: [
    {
      id: 'puck',
      shape: { kind: 'cylinder', radius: 0.05, height: 0.0245 },
      mass: 0.5,
      friction: 0.2,
      pose: { x: 0.1, y: -0.1, theta: 0.5 },
      rigidBody: 'Puck',
    },
    {
      id: 'box',
      shape: { kind: 'box', sizeX: 0.1, sizeY: 0.15, height: 0.03 },
      mass: 0.5,
      friction: 0.2,
      pose: { x: 0.3, y: 0.2, theta: 0 },
    },
  ],
  goal: { slider: 'puck', center: { x: 0.3, y: 0 }, radius: 0.02 },
});

async function rawSocket(): Promise<{
  send(m: Uint8Array, port: number): void;
  next(): Promise<NatNetMessage>;
}> {
  const sock = dgram.createSocket('udp4');
  const queue: Buffer[] = [];
  const waiters: ((b: Buffer) => void)[] = [];
  sock.on('message', (b) => (waiters.length ? waiters.shift()!(b) : queue.push(b)));
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => sock.close(() => r())));
  return {
    send: (m, port) => sock.send(m, port, '127.0.0.1'),
    next: async () => {
      const b = queue.length ? queue.shift()! : await new Promise<Buffer>((r) => waiters.push(r));
      const result = decodePacket(new Uint8Array(b), [3, 1, 0, 0]);
      if (!result.ok) throw new Error(result.error);
      return result.message;
    },
  };
}

async function unicastServer(faults = {}) {
  const server = VirtualNatNetServer.fromScene(scene, {
    commandPort: 0,
    dataPort: 0,
    multicast: false,
    natNetVersion: [3, 1, 0, 0],
    // Exact poses: these tests check the codec, not the cameras' jitter.
    measurementNoise: { position: 0, yaw: 0 },
    faults,
  });
  await server.start(false);
  cleanups.push(() => server.stop());
  return server;
}

describe('virtual NatNet server', () => {
  it('answers a short "Ping" CONNECT, model definitions and frame requests', async () => {
    const server = await unicastServer();
    const sock = await rawSocket();
    sock.send(Uint8Array.from([0, 0, 5, 0, 80, 105, 110, 103, 0]), server.commandPort);
    const info = await sock.next();
    expect(info).toMatchObject({ kind: 'serverInfo', multicast: false, natNetVersion: [3, 1, 0, 0] });
    sock.send(encodePacket({ kind: 'requestModelDef' }, [3, 1, 0, 0]), server.commandPort);
    const defs = await sock.next();
    if (defs.kind !== 'modelDef') throw new Error(defs.kind);
    expect(defs.models.map((m) => (m.kind === 'rigidBody' ? [m.id, m.name] : m.kind))).toEqual([
      [1, 'Tool'],
      [2, 'Puck'],
      [3, 'box'],
    ]);
    server.step();
    // The connected unicast client gets the streamed frame; a frame request gets it again.
    const streamed = await sock.next();
    sock.send(encodePacket({ kind: 'requestFrame' }, [3, 1, 0, 0]), server.commandPort);
    const requested = await sock.next();
    expect(requested).toEqual(streamed);
    if (streamed.kind !== 'frame') throw new Error(streamed.kind);
    const cal = identityCalibration('y');
    const puck = streamed.rigidBodies.find((b) => b.id === 2)!;
    const p = tablePoint(cal, puck.position);
    expect(p[0]).toBeCloseTo(0.1, 6);
    expect(p[1]).toBeCloseTo(-0.1, 6);
    expect(p[2]).toBeCloseTo(0.01225, 6);
    expect(yawOf(tableOrientation(cal, puck.orientation))).toBeCloseTo(0.5, 6);
    expect(streamed.rigidBodies.every((b) => b.params === 1)).toBe(true);
  });

  it('follows a pose source and streams names it leaves out as untracked', async () => {
    const server = await unicastServer();
    const sock = await rawSocket();
    sock.send(encodePacket({ kind: 'keepAlive' }, [3, 1, 0, 0]), server.commandPort);
    let x = 0;
    server.setPoseSource(() => new Map([['Puck', { x: (x += 0.01), y: 0, theta: 0 }]]));
    while (server.transport.unicastClients === 0) await new Promise((r) => setTimeout(r, 2));
    server.step();
    server.step();
    const frames = [await sock.next(), await sock.next()];
    const xs = frames.map((f) =>
      f.kind === 'frame' ? tablePoint(identityCalibration('y'), f.rigidBodies[1]!.position)[0] : NaN,
    );
    expect(xs[0]).toBeCloseTo(0.01, 6);
    expect(xs[1]).toBeCloseTo(0.02, 6);
    const f = frames[1]!;
    if (f.kind !== 'frame') throw new Error(f.kind);
    expect(f.rigidBodies.map((b) => b.params & 1)).toEqual([0, 1, 0]);
  });

  it('drops every frame at drop rate 1 and still counts frame numbers', async () => {
    const server = await unicastServer({ dropRate: 1 });
    const sent = [server.step(), server.step()];
    expect(sent.map((s) => s.frameNumber)).toEqual([1, 2]);
    expect(server.transport.counts.framesDropped).toBe(2);
    expect(server.transport.counts.framesSent).toBe(0);
  });

  it('echo answers carry the request value and an advancing server clock', async () => {
    const server = await unicastServer();
    const sock = await rawSocket();
    sock.send(encodePacket({ kind: 'echoRequest', clientTime: 42n }, [3, 1, 0, 0]), server.commandPort);
    const a = await sock.next();
    await new Promise((r) => setTimeout(r, 5));
    sock.send(encodePacket({ kind: 'echoRequest', clientTime: 43n }, [3, 1, 0, 0]), server.commandPort);
    const b = await sock.next();
    if (a.kind !== 'echoResponse' || b.kind !== 'echoResponse') throw new Error('not echo');
    expect([a.clientTime, b.clientTime]).toEqual([42n, 43n]);
    expect(b.serverTicks).toBeGreaterThan(a.serverTicks);
  });
});
