/** Client reactions that need a hand-driven server: model changes, server changes, garbage. */
import { afterEach, describe, expect, it } from 'vitest';
import { ClockSync } from '../../src-main/mocap/clock-sync';
import { emptyFrame } from '../../src-main/mocap/messages/frame';
import type { ModelDefinitions } from '../../src-main/mocap/messages/model-def';
import { encodePacket } from '../../src-main/mocap/packet';
import type { MocapSnapshot } from '../../src-main/mocap/scene-binding';
import type { NatNetVersion } from '../../src-main/mocap/version';
import { freeUdpPort, loopbackClient, startHandDrivenServer } from '../helpers/natnet-loopback';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function rigidBody(id: number, name: string): ModelDefinitions['models'][number] {
  return { kind: 'rigidBody', name, id, parentId: -1, offset: [0, 0, 0], markers: [] };
}

function frame(n: number, ids: number[], params = 0): Uint8Array {
  const f = emptyFrame(n);
  f.rigidBodies = ids.map((id) => ({
    id,
    position: [0, 0, 0],
    orientation: [0, 0, 0, 1],
    meanError: 0,
    params: 1,
  }));
  f.params = params;
  return encodePacket({ kind: 'frame', ...f }, [3, 1, 0, 0]);
}

async function until<T>(fn: () => T | undefined, timeout = 5): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() - t0 > timeout * 1000) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('NatNet client', () => {
  it('asks for model definitions again when a frame names an unknown rigid body', async () => {
    let models: ModelDefinitions = { models: [rigidBody(1, 'Pusher')] };
    let modelRequests = 0;
    const transport = await startHandDrivenServer({ modelDefinitions: () => (modelRequests++, models) });
    cleanups.push(() => transport.stop());
    const client = loopbackClient(cleanups, transport.commandPort);
    const snaps: MocapSnapshot[] = [];
    client.on('frame', (_f, s) => snaps.push(s));
    await client.connect();
    await until(() => (client.modelDefs ? true : undefined));
    expect(modelRequests).toBe(1);
    // Motive adds a rigid body: frames now carry id 2, which the client has no name for yet.
    models = { models: [rigidBody(1, 'Pusher'), rigidBody(2, 'Slider')] };
    await until(() => (transport.unicastClients > 0 ? true : undefined));
    // A live stream: frames keep coming until the client has asked again.
    await until(() => {
      transport.sendFrame(frame(1, [1, 2]));
      return modelRequests >= 2 ? true : undefined;
    });
    await until(() => (client.modelDefs?.models.length === 2 ? true : undefined));
    transport.sendFrame(frame(2, [1, 2]));
    const last = await until(() => snaps.find((s) => s.frameNumber === 2));
    expect(last.rigidBodies.map((b) => b.name)).toEqual(['Pusher', 'Slider']);
    expect(snaps[0]!.rigidBodies.map((b) => b.name)).toEqual(['Pusher', undefined]);
  });

  it('counts and reports garbage without failing, and keeps decoding good frames', async () => {
    const transport = await startHandDrivenServer({
      modelDefinitions: () => ({ models: [rigidBody(1, 'Pusher')] }),
    });
    cleanups.push(() => transport.stop());
    const client = loopbackClient(cleanups, transport.commandPort);
    const errors: string[] = [];
    client.on('decodeError', (e) => errors.push(e));
    await client.connect();
    await until(() => (transport.unicastClients > 0 ? true : undefined));
    const good = frame(5, [1]);
    const huge = good.slice();
    huge.set([0xff, 0xff, 0xff, 0x7f], 8); // marker-set count 2^31 - 1
    transport.sendFrame(huge);
    transport.sendFrame(Uint8Array.from([7, 0]));
    transport.sendFrame(good);
    await until(() => (client.getStats().frames === 1 ? true : undefined));
    expect(client.getStats().decodeErrors).toBe(2);
    expect(errors[0]).toMatch(/marker set count/);
  });

  it('follows the server when it restarts with another stream (version change)', async () => {
    const port = await freeUdpPort();
    const start = (version: NatNetVersion) =>
      startHandDrivenServer({
        commandPort: port,
        version,
        modelDefinitions: () => ({ models: [rigidBody(1, 'Pusher')] }),
      });
    let transport = await start([3, 1, 0, 0]);
    const client = loopbackClient(cleanups, port, {
      keepAlive: 0.05,
      echoInterval: 0.05,
      reconnectAfter: 0.2,
    });
    await client.connect();
    expect(client.version).toEqual([3, 1, 0, 0]);
    await transport.stop();
    transport = await start([4, 1, 0, 0]);
    cleanups.push(() => transport.stop());
    // No frames come (the new server does not know the client): it connects again and learns the new version.
    await until(() => (client.version[0] === 4 ? true : undefined));
    await until(() => (transport.unicastClients > 0 ? true : undefined));
    const f = emptyFrame(9);
    f.rigidBodies = [{ id: 1, position: [1, 2, 3], orientation: [0, 0, 0, 1], meanError: 0, params: 1 }];
    transport.sendFrame(encodePacket({ kind: 'frame', ...f }, [4, 1, 0, 0]));
    await until(() => (client.getStats().frames > 0 ? true : undefined));
    expect(client.getStats().decodeErrors).toBe(0);
  });
});

describe('ClockSync', () => {
  it('takes the offset from the minimum round trip', () => {
    const c = new ClockSync(8);
    // True offset: local = server + 100 s. Asymmetric delays on the slow samples bias them.
    c.add({ sentAt: 10, receivedAt: 10.05, serverTime: -89.96 });
    c.add({ sentAt: 20, receivedAt: 20.002, serverTime: -79.999 });
    c.add({ sentAt: 30, receivedAt: 30.1, serverTime: -69.99 });
    expect(c.minRoundTrip).toBeCloseTo(0.002, 9);
    expect(c.offset).toBeCloseTo(100, 9);
    expect(c.toLocal(5)).toBeCloseTo(105, 9);
  });

  it('forgets samples outside the window and ignores impossible ones', () => {
    const c = new ClockSync(2);
    c.add({ sentAt: 0, receivedAt: 0.001, serverTime: 0 });
    c.add({ sentAt: 1, receivedAt: 1.01, serverTime: 1 });
    c.add({ sentAt: 2, receivedAt: 2.01, serverTime: 2 });
    c.add({ sentAt: 3, receivedAt: 2.5, serverTime: 3 });
    expect(c.sampleCount).toBe(2);
    expect(c.minRoundTrip).toBeCloseTo(0.01, 9);
  });
});
