/** The client and the virtual server agree over loopback, multicast and unicast, NatNet 3.1 and 4.1. */
import { afterEach, describe, expect, it } from 'vitest';
import type { NatNetClient } from '../../src-main/mocap/client';
import { fitCalibration2d, identityCalibration } from '../../src-main/calibration/mocap-table';
import type { FrameOfData } from '../../src-main/mocap/messages/frame';
import { responseFloat32 } from '../../src-main/mocap/messages/text';
import {
  ageTo,
  toPlanarPoses,
  type MocapBinding,
  type MocapSnapshot,
  type PlanarPoses,
} from '../../src-main/mocap/scene-binding';
import { monotonicSeconds } from '../../src-main/common/clock';
import { pointFromZUp } from '../../src-main/calibration/axes';
import type { NatNetVersion } from '../../src-main/mocap/version';
import { motiveAndClient } from '../helpers/natnet-loopback';

const NO_JITTER = { position: 0, yaw: 0 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const binding: MocapBinding = { pusher: 'Pusher', sliders: [{ id: 'puck', rigidBody: 'Puck' }] };
const bodies = [
  { id: 1, name: 'Pusher' },
  { id: 7, name: 'Puck' },
];

/** `exact`: no camera jitter, for tests of the codec and transport that compare poses exactly. */
async function setup(opts: {
  multicast: boolean;
  version: NatNetVersion;
  faults?: object;
  rateHz?: number;
  exact?: boolean;
}) {
  return motiveAndClient(
    cleanups,
    {
      rigidBodies: bodies,
      multicast: opts.multicast,
      multicastInterface: '127.0.0.1',
      natNetVersion: opts.version,
      rateHz: opts.rateHz ?? 200,
      ...(opts.exact ? { measurementNoise: NO_JITTER } : {}),
      faults: opts.faults ?? {},
    },
    new Map([
      ['Pusher', { x: 0.1, y: -0.2, theta: 0, z: 0.05 }],
      ['Puck', { x: 0.3, y: 0.15, theta: 0.8, z: 0.012 }],
    ]),
    { echoInterval: 0.05, keepAlive: 0.2 },
  );
}

function nextFrames(client: NatNetClient, n: number, timeout = 8): Promise<[FrameOfData, MocapSnapshot][]> {
  return new Promise((resolve, reject) => {
    const got: [FrameOfData, MocapSnapshot][] = [];
    const timer = setTimeout(
      () => (off(), reject(new Error(`only ${got.length} of ${n} frames`))),
      timeout * 1000,
    );
    const off = client.on('frame', (f, s) => {
      // Frames before the model definitions arrive have no names yet.
      if (s.rigidBodies.some((b) => b.name === undefined)) return;
      got.push([f, s]);
      if (got.length >= n) {
        clearTimeout(timer);
        off();
        resolve(got);
      }
    });
  });
}

describe.each([
  ['multicast', true, [3, 1, 0, 0]],
  ['unicast', false, [3, 1, 0, 0]],
  ['multicast', true, [4, 1, 0, 0]],
  ['unicast', false, [4, 1, 0, 0]],
] as const)('client <-> virtual server, %s, NatNet %s', (_mode, multicast, version) => {
  it('connects, learns names, and the poses agree', async () => {
    const { server, client } = await setup({ multicast, version: [...version], exact: true });
    const info = await client.connect();
    expect(info.multicast).toBe(multicast);
    expect([...info.natNetVersion]).toEqual(version);
    const frames = await nextFrames(client, 10);
    expect(server.transport.unicastClients).toBe(multicast ? 0 : 1);
    const [, snap] = frames.at(-1)!;
    expect(snap.rigidBodies.map((b) => b.name)).toEqual(['Pusher', 'Puck']);
    const poses = toPlanarPoses(snap, binding, identityCalibration('y'));
    expect(poses.ok).toBe(true);
    expect(poses.pusher.pose!.x).toBeCloseTo(0.1, 6);
    expect(poses.pusher.pose!.y).toBeCloseTo(-0.2, 6);
    expect(poses.sliders[0]!.pose!.x).toBeCloseTo(0.3, 6);
    expect(poses.sliders[0]!.pose!.y).toBeCloseTo(0.15, 6);
    expect(poses.sliders[0]!.pose!.theta).toBeCloseTo(0.8, 6);
    expect(poses.sliders[0]!.z).toBeCloseTo(0.012, 6);
    const rate = responseFloat32(await client.request('FrameRate'));
    expect(rate).toBe(200);
    await expect(client.request('NoSuchCommand')).rejects.toThrow(/recognise/);
    const stats = client.getStats();
    expect(stats.frames).toBeGreaterThanOrEqual(10);
    expect(stats.decodeErrors).toBe(0);
    // Exposure to transmit: the server's 4 ms exposure latency, plus however late its timer sent
    // the frame after it was due on the camera clock.
    expect(stats.systemLatency).toBeGreaterThanOrEqual(0.004 - 1e-7);
    const [lastFrame, lastSnap] = frames.at(-1)!;
    expect(lastSnap.systemLatency).toBeCloseTo(
      Number(lastFrame.transmit - lastFrame.cameraMidExposure) / server.transport.clockFrequency,
      9,
    );
  });
});

describe('client clock sync, stats and faults over loopback', () => {
  it('estimates the clock offset with echo and reports frame rate and latency', async () => {
    const { client } = await setup({ multicast: true, version: [3, 1, 0, 0] });
    await client.connect();
    await nextFrames(client, 60);
    const stats = client.getStats();
    expect(client.clockOffset).toBeDefined();
    expect(stats.roundTrip).toBeGreaterThan(0);
    expect(stats.roundTrip).toBeLessThan(0.5);
    // Sanity bounds only (2 shared cores): ~200 Hz and a latency of a few ms.
    expect(stats.frameRate).toBeGreaterThan(50);
    expect(stats.frameRate).toBeLessThan(400);
    expect(stats.totalLatency).toBeGreaterThan(0);
    expect(stats.totalLatency).toBeLessThan(0.5);
  });

  it('reports lost tracking as untracked, dropped frames as drops, corrupted packets as decode errors', async () => {
    const { client } = await setup({
      multicast: false,
      version: [4, 1, 0, 0],
      faults: { lostTracking: ['Puck'], dropRate: 0.2, corruptRate: 0.1, seed: 7 },
    });
    await client.connect();
    const frames = await nextFrames(client, 100);
    let prev: PlanarPoses | undefined;
    for (const [, snap] of frames)
      prev = toPlanarPoses(snap, binding, identityCalibration('y'), { previous: prev });
    expect(prev!.pusher.status).toBe('ok');
    expect(prev!.sliders[0]!.status).toBe('untracked');
    expect(prev!.sliders[0]!.pose).toBeNull();
    expect(prev!.sliders[0]!.tracked).toBe(false);
    expect(prev!.ok).toBe(false);
    const stats = client.getStats();
    expect(stats.droppedFrames).toBeGreaterThan(0);
    expect(stats.decodeErrors).toBeGreaterThan(0);
  });

  it('applies pose noise and a calibration, and poses go stale when the stream stops', async () => {
    // The table is the mocap floor rotated by 90 deg and shifted by (1, 0).
    const calibration = fitCalibration2d(
      [
        { mocap: pointFromZUp([0, 0, 0], 'y'), table: [1, 0] },
        { mocap: pointFromZUp([1, 0, 0], 'y'), table: [1, 1] },
        { mocap: pointFromZUp([0, 1, 0], 'y'), table: [0, 0] },
      ],
      'y',
      'test',
    );
    const { server, client } = await motiveAndClient(
      cleanups,
      {
        rigidBodies: bodies,
        multicast: true,
        multicastInterface: '127.0.0.1',
        rateHz: 200,
        calibration,
        faults: { positionNoise: 0.001, seed: 3 },
      },
      new Map([
        ['Pusher', { x: 0.2, y: 0.1, theta: 0 }],
        ['Puck', { x: -0.1, y: 0.3, theta: 1 }],
      ]),
    );
    await client.connect();
    const frames = await nextFrames(client, 50);
    const xs = frames.map(([, s]) => toPlanarPoses(s, binding, calibration).sliders[0]!.pose!.x);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    expect(mean).toBeCloseTo(-0.1, 3);
    expect(sd).toBeGreaterThan(0.0003);
    expect(sd).toBeLessThan(0.003);
    const last = toPlanarPoses(frames.at(-1)![1], binding, calibration);
    expect(last.ok).toBe(true);
    server.setPoseSource(() => new Map());
    await server.stop();
    await new Promise((r) => setTimeout(r, 150));
    const later = ageTo(last, monotonicSeconds(), 0.1);
    expect(later.ok).toBe(false);
    expect(later.sliders[0]!.status).toBe('stale');
  });
});
