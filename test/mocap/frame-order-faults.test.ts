/**
 * Out-of-order motion capture over loopback: the virtual Motive behind a network that reorders
 * datagrams. The client counts each frame that arrives after a newer one as older (dropped), and
 * the state estimator, fed the same frames, drops exactly those: the counts the console and the
 * session log show are what the supervisor was spared.
 */
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { NatNetClient } from '../../src-main/mocap/client';
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import { StateLayout } from '#contract/state';
import { StateEstimator } from '../../src-main/mocap/state-estimator';
import type { MocapSnapshot } from '../../src-main/mocap/scene-binding';
import { VirtualNatNetServer, type TablePose } from '../../src-main/virtual-lab/natnet-server';
import { waitUntil } from '../helpers/wait-until';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function freePort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const INT32_MAX = 2 ** 31 - 1;

describe("Motive's frame counter wrapping round", () => {
  it('is a step forward: nothing counted out of order, nothing dropped, the poses stay fresh', async () => {
    const server = new VirtualNatNetServer({
      rigidBodies: [{ id: 1, name: 'Pusher' }],
      address: '127.0.0.1',
      commandPort: 0,
      dataPort: await freePort(),
      multicast: false,
      natNetVersion: [4, 1, 0, 0],
      rateHz: 200,
      calibration: identityCalibration('z'),
      firstFrameNumber: INT32_MAX - 40,
    });
    server.setPoseSource(() => new Map([['Pusher', { x: 0.1, y: -0.2, theta: 0, z: 0.05 }]]));
    await server.start();
    cleanups.push(() => server.stop());
    const client = new NatNetClient({
      serverAddress: '127.0.0.1',
      commandPort: server.commandPort,
      localAddress: '127.0.0.1',
    });
    cleanups.push(() => client.close());
    const estimator = new StateEstimator({
      binding: { pusher: 'Pusher', sliders: [] },
      layout: new StateLayout([]),
      calibration: () => identityCalibration('z'),
    });
    const arrived: number[] = [];
    let freshAfterWrap = 0;
    client.on('frame', (_f, s) => {
      arrived.push(s.frameNumber);
      const p = estimator.frame(s);
      if (s.frameNumber < 0 && p.ok && p.frameNumber === s.frameNumber) freshAfterWrap++;
    });
    await client.connect();
    await waitUntil('frames past the wrap', () => arrived.filter((n) => n < 0).length >= 40, {
      timeout: 20,
    });
    await client.close();
    expect(arrived.some((n) => n > 0)).toBe(true);
    const stats = client.getStats();
    expect(stats.olderFrames).toBe(0);
    expect(stats.restarts).toBe(0);
    expect(estimator.frameCounts.dropped).toBe(0);
    expect(freshAfterWrap).toBe(arrived.filter((n) => n < 0).length);
  });
});

describe('a reordering network between Motive and the client', () => {
  it('counts every late frame as older, and the estimator drops exactly those', async () => {
    const server = new VirtualNatNetServer({
      rigidBodies: [
        { id: 1, name: 'Pusher' },
        { id: 2, name: 'Box' },
      ],
      address: '127.0.0.1',
      commandPort: 0,
      dataPort: await freePort(),
      multicast: false,
      natNetVersion: [4, 1, 0, 0],
      rateHz: 200,
      calibration: identityCalibration('z'),
      faults: { reorderRate: 0.2, seed: 3 },
    });
    const poses = new Map<string, TablePose>([
      ['Pusher', { x: 0.1, y: -0.2, theta: 0, z: 0.05 }],
      ['Box', { x: 0.3, y: 0.15, theta: 0.8, z: 0.012 }],
    ]);
    server.setPoseSource(() => poses);
    await server.start();
    cleanups.push(() => server.stop());
    const client = new NatNetClient({
      serverAddress: '127.0.0.1',
      commandPort: server.commandPort,
      localAddress: '127.0.0.1',
    });
    cleanups.push(() => client.close());
    const estimator = new StateEstimator({
      binding: { pusher: 'Pusher', sliders: [{ id: 'box', rigidBody: 'Box' }] },
      layout: new StateLayout(['box']),
      calibration: () => identityCalibration('z'),
    });
    const arrived: MocapSnapshot[] = [];
    client.on('frame', (_f, s) => {
      arrived.push(s);
      estimator.frame(s);
    });
    await client.connect();
    await waitUntil('300 frames', () => arrived.length >= 300, { timeout: 20 });
    await client.close();
    const stats = client.getStats();
    // Frames that arrived after a newer one, counted from what arrived.
    let newest = -Infinity;
    let late = 0;
    for (const s of arrived) {
      if (s.frameNumber < newest) late++;
      newest = Math.max(newest, s.frameNumber);
    }
    expect(late).toBeGreaterThan(10);
    expect(stats.olderFrames).toBe(late);
    expect(estimator.frameCounts.dropped).toBe(late);
    expect(stats.repeatedFrames).toBe(0);
    expect(stats.restarts).toBe(0);
    // Gaps in the numbering of the frames taken: frames that never came, and the late ones.
    // The numbering starts at the first frame to arrive (one sent earlier may come after it).
    const first = arrived[0]!.frameNumber;
    const last = Math.max(...arrived.map((s) => s.frameNumber));
    expect(stats.droppedFrames).toBe(last - first + 1 - (arrived.length - late));
    // The server held back frames; each one it held arrived late (or the stream ended first).
    expect(server.transport.counts.framesReordered).toBeGreaterThanOrEqual(late);
  });
});
