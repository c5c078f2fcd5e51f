/**
 * A second sender posing as Motive, over loopback (helpers/natnet-spoofer.ts): copies of the real
 * frames renumbered 2^20 ahead with one body moved 0.44 m, sent from another port (to the command
 * socket, to the group, by unicast to the data port) and from Motive's own socket (forged), and
 * SERVERINFOs nobody asked for that name another group. The client must read none of the first
 * kind, the estimator must take none of the second, the stream must keep its group and flow on,
 * and the signs must reach the poses, so that a supervisor stops its run and arms none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import type { PlanarPoses } from '../../src-main/mocap/scene-binding';
import { identityEstimator, mocapOnlySupervisor } from '../helpers/mocap-supervision';
import { motiveAndClient } from '../helpers/natnet-loopback';
import { SPOOF_RENUMBER, startSpoofer, type Spoofer } from '../helpers/natnet-spoofer';
import { waitUntil } from '../helpers/wait-until';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GROUP = '239.255.42.99';
const BOX = { x: 0.3, y: 0.15, theta: 0.8, z: 0.012 };

/** A supervisor on a still robot, fed nothing but the estimator's poses. */
const supervisorAt = (now: () => number) =>
  mocapOnlySupervisor({ now, pusher: { x: 0.1, y: -0.2 }, table: { x: 1, y: 0.8 } });

async function streamAndClient(multicast: boolean) {
  const { server, client, dataPort } = await motiveAndClient(
    cleanups,
    {
      rigidBodies: [
        { id: 1, name: 'Pusher' },
        { id: 2, name: 'Box' },
      ],
      multicast,
      multicastGroup: GROUP,
      multicastInterface: '127.0.0.1',
      natNetVersion: [4, 1, 0, 0],
      rateHz: 120,
      calibration: identityCalibration('z'),
    },
    new Map([
      ['Pusher', { x: 0.1, y: -0.2, theta: 0, z: 0.05 }],
      ['Box', BOX],
    ]),
  );
  const estimator = identityEstimator({ pusher: 'Pusher', sliders: [{ id: 'box', rigidBody: 'Box' }] });
  /** Every frame's poses as the estimator judged them, and when a frame was taken as new. */
  const judged: PlanarPoses[] = [];
  const taken: number[] = [];
  const takenNumbers: number[] = [];
  let newest = -Infinity;
  client.on('frame', (_f, s) => {
    const p = estimator.frame(s);
    judged.push(p);
    if (p.frameNumber === s.frameNumber && s.frameNumber !== newest) {
      newest = s.frameNumber;
      taken.push(s.receivedAt);
      takenNumbers.push(s.frameNumber);
    }
  });
  await client.connect();
  await waitUntil('a stream of frames', () => taken.length >= 30, { timeout: 10 });
  return { server, client, estimator, judged, taken, takenNumbers, dataPort };
}

async function attack(spoofer: Spoofer, ms: number): Promise<void> {
  cleanups.push(() => spoofer.stop());
  await new Promise((r) => setTimeout(r, ms));
  await spoofer.stop();
}

/** What every judged pose of the box says: how far from where it really is (m). */
function worstBoxError(judged: PlanarPoses[]): number {
  return Math.max(
    ...judged.map((p) => {
      const b = p.sliders[0]!.pose;
      return b ? Math.hypot(b.x - BOX.x, b.y - BOX.y) : 0;
    }),
  );
}

/**
 * The real stream flowed through: every frame taken from `from` on is the one after the one
 * before (none lost, none left for another numbering: a client that left the group would miss the
 * numbers Motive went on counting), and no silence of the audit's kind (2.58 s). The bound is
 * loose on purpose: the server sends from this process, which a loaded two-core machine holds up.
 */
function expectUnbroken(numbers: number[], times: number[], from: number): void {
  const n = numbers.slice(from);
  expect(n.length).toBeGreaterThan(60);
  expect(n.every((k, i) => i === 0 || k === n[i - 1]! + 1)).toBe(true);
  expect(largestGap(times.slice(from)), 'largest gap between real frames (s)').toBeLessThan(1);
}

function largestGap(times: number[]): number {
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return gap;
}

describe('a second sender posing as Motive, over loopback', () => {
  it('multicast: moves no pose, keeps the group, the stream flows on, and the poses say it may be spoofed', async () => {
    const { server, client, estimator, judged, taken, takenNumbers, dataPort } = await streamAndClient(true);
    const before = client.getStats();
    const takenBefore = taken.length;
    const spoofer = await startSpoofer({
      server,
      client: client.localEndpoint!,
      bodyId: 2,
      shift: 0.44,
      multicast: { group: GROUP, dataPort },
    });
    // Armed and running when the attack begins: the first sign stops it.
    let now = 0;
    const { sup, wire } = supervisorAt(() => now);
    sup.arm({ ok: true, checks: [] });
    sup.startRun();
    const running = client.on('frame', () => {
      now = estimator.poses()?.pusher.poseTime ?? now;
      sup.updateMocap(estimator.poses(now)!);
    });
    await attack(spoofer, 1500);
    running();
    const stats = client.getStats();

    // Every way was tried many times.
    expect(spoofer.sent.probes).toBeGreaterThan(100);
    expect(spoofer.sent.forged).toBeGreaterThan(100);
    expect(spoofer.sent.multicast).toBeGreaterThan(100);
    expect(spoofer.sent.serverInfo).toBeGreaterThan(5);
    // Not one spoofed frame was taken: no pose moved, no raised number became the newest.
    expect(worstBoxError(judged)).toBeLessThan(0.001);
    expect(judged.some((p) => spoofer.numbers.has(p.frameNumber))).toBe(false);
    // The forged frames reached the estimator (Motive's own port) and were dropped as unconfirmed.
    expect(estimator.frameCounts.unconfirmed).toBeGreaterThan(100);
    expect(stats.unconfirmedFrames - before.unconfirmedFrames).toBe(estimator.frameCounts.unconfirmed);
    // No real frame was counted out of order, and the real stream was never left.
    expect(stats.olderFrames).toBe(before.olderFrames);
    expect(stats.restarts).toBe(0);
    expect(client.serverInfo?.multicastAddress).toBe(GROUP);
    expectUnbroken(takenNumbers, taken, takenBefore);
    // Signs: another port on the data and command sockets, SERVERINFOs nobody asked for, two numberings.
    expect(stats.spoofSigns - before.spoofSigns).toBeGreaterThan(100);
    expect(estimator.poses()?.suspect).toBeDefined();
    expect(sup.stopReason).toMatchObject({ code: 'mocap-suspect' });
    expect(wire).toEqual(['stop']);
    // And no run arms on this stream.
    const next = supervisorAt(() => now).sup;
    next.updateMocap(estimator.poses(now)!);
    expect(next.arm({ ok: true, checks: [] })).toBe(false);
  });

  it('multicast: unicast to the data port never reaches the client', async () => {
    const { server, client, judged, dataPort } = await streamAndClient(true);
    const before = client.getStats();
    const spoofer = await startSpoofer({
      server,
      client: client.localEndpoint!,
      bodyId: 2,
      shift: 0.44,
      probes: false,
      forged: false,
      serverInfoEvery: 60,
      multicast: { group: GROUP, dataPort },
    });
    // The group copies come from another port and are refused; the unicast ones are not even read.
    await attack(spoofer, 500);
    const stats = client.getStats();
    expect(spoofer.sent.unicastData).toBeGreaterThan(30);
    // One sign per copy to the group (another port), none for the unicast ones: never read.
    expect(stats.spoofSigns - before.spoofSigns).toBe(spoofer.sent.multicast);
    expect(stats.foreignPackets).toBe(before.foreignPackets);
    expect(judged.some((p) => spoofer.numbers.has(p.frameNumber))).toBe(false);
    expect(worstBoxError(judged)).toBeLessThan(0.001);
  });

  it('unicast: 50 probes to the command socket and unsolicited SERVERINFOs are refused; the stream stays unicast', async () => {
    const { server, client, estimator, judged, taken, takenNumbers } = await streamAndClient(false);
    const before = client.getStats();
    const takenBefore = taken.length;
    const spoofer = await startSpoofer({ server, client: client.localEndpoint!, bodyId: 2, shift: 0.44 });
    await waitUntil('50 probes', () => spoofer.sent.probes >= 50, { timeout: 5 });
    await attack(spoofer, 500);
    const stats = client.getStats();
    expect(worstBoxError(judged)).toBeLessThan(0.001);
    expect(judged.some((p) => spoofer.numbers.has(p.frameNumber))).toBe(false);
    expect(client.serverInfo?.multicast).toBe(false);
    expectUnbroken(takenNumbers, taken, takenBefore);
    // Each probe and each SERVERINFO (either port) is a sign; each forged frame is unconfirmed.
    expect(stats.spoofSigns - before.spoofSigns).toBeGreaterThanOrEqual(
      spoofer.sent.probes + 2 * spoofer.sent.serverInfo,
    );
    expect(estimator.frameCounts.unconfirmed).toBeGreaterThan(40);
    expect(stats.lastSpoofSign?.detail).toMatch(/on the command socket|nobody asked for|went on/);
    expect(SPOOF_RENUMBER).toBe(2 ** 20);
  });
});
