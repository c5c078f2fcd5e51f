/**
 * A stream in a bitstream this console cannot decode is named once, with the Motive setting that
 * fixes it, and its frames are dropped unread: never one decode error per frame.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NatNetLinkError } from '../../src-main/mocap/client';
import { emptyFrame } from '../../src-main/mocap/messages/frame';
import { encodePacket } from '../../src-main/mocap/packet';
import type { NatNetVersion } from '../../src-main/mocap/version';
import { freeUdpPort, loopbackClient, startHandDrivenServer } from '../helpers/natnet-loopback';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('NatNet client: a bitstream it cannot decode', () => {
  it('a Motive that comes back streaming NatNet 2.9 is named once; its frames are not decode errors', async () => {
    const port = await freeUdpPort();
    const start = (version: NatNetVersion) =>
      startHandDrivenServer({ commandPort: port, version, modelDefinitions: () => ({ models: [] }) });
    let transport = await start([3, 1, 0, 0]);
    const client = loopbackClient(cleanups, port, {
      keepAlive: 0.05,
      echoInterval: 0.05,
      reconnectAfter: 0.1,
    });
    const errors: NatNetLinkError[] = [];
    client.on('linkError', (e) => errors.push(e));
    await client.connect();
    await transport.stop();
    transport = await start([2, 9, 0, 0]);
    cleanups.push(() => transport.stop());
    for (let i = 0; i < 100 && errors.length === 0; i++) await sleep(10);
    for (let n = 1; n <= 30; n++) {
      transport.sendFrame(encodePacket({ kind: 'frame', ...emptyFrame(n) }, [3, 1, 0, 0]));
      await sleep(5);
    }
    await sleep(300);
    expect(errors.map((e) => e.message)).toEqual([
      "Motive streams NatNet 2.9; this console decodes 3.0..4.1: set Motive's Streaming > Bitstream version to 3.0 or newer (Motive 2.0 and later stream NatNet 3)",
    ]);
    expect(client.getStats().frames).toBe(0);
    expect(client.getStats().decodeErrors).toBe(0);
  });
});
