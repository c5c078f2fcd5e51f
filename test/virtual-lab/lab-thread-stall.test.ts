/**
 * The virtual lab's devices run in a thread of their own (virtual-lab/lab-thread, as `parapush lab`
 * and the console start them): a 300 ms busy-wait on the main thread of the lab's process leaves
 * its motion-capture frames and robot states streaming, with no gap over 100 ms (the staleness
 * limit), as received and stamped by the safety thread's clients. The same stall with the lab on
 * the main thread (how `parapush lab` ran before) pauses both streams for the whole stall: the
 * measurement sees the difference. Receive times are the clients' own clocks, stamped in the
 * safety thread as each sample arrives, so they do not wait for the main thread either.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src-main/common/config-files';
import { setupSchema } from '../../src-main/calibration/setup-file';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import { monotonicSeconds } from '../../src-main/common/clock';
import { programPlaying } from '../../src-main/robot/robot-state';
import { streamGaps, type StreamSample } from '../../src-main/session/stream-gaps';
import { VirtualLabThread } from '../../src-main/virtual-lab/lab-thread/lab-thread';
import { VirtualLab, type LabConfigInput } from '../../src-main/virtual-lab/virtual-lab';
import { FREE_LAB_PORTS } from '../helpers/lab-config';
import { repoRoot } from '../helpers/scenes';

const sceneFile = path.join(repoRoot, 'resources/scenes/isrr-obstacle.json');
const config: LabConfigInput = { scene: sceneFile, ports: FREE_LAB_PORTS, mocap: { multicast: false } };
/** How long the main thread is held up, s. */
const STALL = 0.3;
/** The supervisor's staleness limit for both streams, s. */
const STALE = 0.1;

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** Busy-waits on this (the main) thread. */
function stallMainThread(seconds: number): void {
  const end = monotonicSeconds() + seconds;
  while (monotonicSeconds() < end);
}

/**
 * Connects to the lab, stalls the main thread once the streams run, and returns each stream's
 * receive gaps around the stall (from 0.3 s before it to 0.3 s after it).
 */
async function gapsThroughStall(lab: { ports: Parameters<typeof loopbackLabAddress>[0]; setup: unknown }) {
  const link = await LabLink.connect(
    loopbackLabAddress(lab.ports),
    loadSceneFile(sceneFile),
    setupSchema.parse(lab.setup),
  );
  closing.push(() => link.close());
  await link.robot.waitForState(programPlaying, 5);
  const frames: StreamSample[] = [];
  const states: StreamSample[] = [];
  link.natnet.on('frame', (_, s) =>
    frames.push({ receivedAt: s.receivedAt, number: s.frameNumber, sourceTime: null }),
  );
  link.robot.on('state', (s) =>
    states.push({ receivedAt: s.receivedAt, number: null, sourceTime: s.timestamp }),
  );
  await new Promise((r) => setTimeout(r, 500));
  // Both streams' arrival times are on the one monotonic clock.
  const before = monotonicSeconds();
  stallMainThread(STALL);
  const after = monotonicSeconds();
  await new Promise((r) => setTimeout(r, 500));
  const around = (samples: StreamSample[], from: number, to: number) =>
    samples.filter((s) => s.receivedAt >= from - 0.3 && s.receivedAt <= to + 0.3);
  const during = (samples: StreamSample[], from: number, to: number) =>
    samples.filter((s) => s.receivedAt > from && s.receivedAt < to).length;
  return {
    frames: streamGaps(around(frames, before, after))!,
    states: streamGaps(around(states, before, after))!,
    framesDuring: during(frames, before, after),
    statesDuring: during(states, before, after),
  };
}

describe("a stall of the lab process's main thread", () => {
  it('leaves frames and robot states streaming when the devices run in their own thread', async () => {
    const lab = await VirtualLabThread.start(config);
    closing.push(() => lab.stop());
    const g = await gapsThroughStall(lab);
    // Received all through the stall: 120 Hz frames and 500 Hz robot states, none 100 ms apart.
    expect(g.framesDuring).toBeGreaterThan(STALL * 120 * 0.5);
    expect(g.statesDuring).toBeGreaterThan(STALL * 500 * 0.5);
    expect(g.frames.max).toBeLessThan(STALE);
    expect(g.states.max).toBeLessThan(STALE);
  }, 60_000);

  it('pauses both streams for the stall when the devices run on the main thread', async () => {
    const lab = await VirtualLab.start(config);
    closing.push(() => lab.stop());
    const g = await gapsThroughStall(lab);
    expect(g.frames.max).toBeGreaterThan(STALL * 0.8);
    expect(g.states.max).toBeGreaterThan(STALL * 0.8);
  }, 60_000);
});
