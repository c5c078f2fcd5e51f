/**
 * Out-of-order motion capture over loopback: the virtual Motive behind a network that reorders
 * datagrams. The client counts each frame that arrives after a newer one as older (dropped), and
 * the state estimator, fed the same frames, drops exactly those: the counts the console and the
 * session log show are what the supervisor was spared.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { identityCalibration } from '../../src-main/calibration/mocap-table';
import type { MocapSnapshot } from '../../src-main/mocap/scene-binding';
import type { VirtualNatNetServerOptions } from '../../src-main/virtual-lab/natnet-server';
import { identityEstimator } from '../helpers/mocap-supervision';
import { motiveAndClient } from '../helpers/natnet-loopback';
import { waitUntil } from '../helpers/wait-until';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Motive 4.1 at 200 Hz, unicast, Z-up on the table's axes; `more` adds to it. */
const motive = (
  rigidBodies: VirtualNatNetServerOptions['rigidBodies'],
  more: Pick<VirtualNatNetServerOptions, 'firstFrameNumber' | 'faults'>,
) => ({
  rigidBodies,
  multicast: false,
  natNetVersion: [4, 1, 0, 0] as const,
  rateHz: 200,
  calibration: identityCalibration('z'),
  ...more,
});

const INT32_MAX = 2 ** 31 - 1;

describe("Motive's frame counter wrapping round", () => {
  it('is a step forward: nothing counted out of order, nothing dropped, the poses stay fresh', async () => {
    const { client } = await motiveAndClient(
      cleanups,
      motive([{ id: 1, name: 'Pusher' }], { firstFrameNumber: INT32_MAX - 40 }),
      new Map([['Pusher', { x: 0.1, y: -0.2, theta: 0, z: 0.05 }]]),
    );
    const estimator = identityEstimator({ pusher: 'Pusher', sliders: [] });
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
    const { server, client } = await motiveAndClient(
      cleanups,
      motive(
        [
          { id: 1, name: 'Pusher' },
          { id: 2, name: 'Box' },
        ],
        { faults: { reorderRate: 0.2, seed: 3 } },
      ),
      new Map([
        ['Pusher', { x: 0.1, y: -0.2, theta: 0, z: 0.05 }],
        ['Box', { x: 0.3, y: 0.15, theta: 0.8, z: 0.012 }],
      ]),
    );
    const estimator = identityEstimator({ pusher: 'Pusher', sliders: [{ id: 'box', rigidBody: 'Box' }] });
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
