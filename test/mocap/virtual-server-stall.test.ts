/**
 * The virtual Motive keeps its camera clock through a stalled event loop (a planning step's load
 * on the thread it runs on): the frames the stall held up go out late, at once, each numbered and
 * stamped for the camera time it was taken at, and the server counts them, where it used to carry
 * on numbering as if no time had passed (a stall of the lab's own thread, docs/safety.md). The stall is
 * injected by blocking the event loop; nothing here asserts a duration.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { monotonicNanoseconds } from '../../src-main/common/clock';
import { decodePacket } from '../../src-main/mocap/packet';
import { FrameSchedule } from '../../src-main/virtual-lab/frame-schedule';
import { VirtualNatNetServer, type SentFrame } from '../../src-main/virtual-lab/natnet-server';

const PERIOD = 8_333_333n;

/** Holds this thread's event loop for `ms` (the injected fault: synchronous work, no timer runs). */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the camera clock', () => {
  it('makes each frame due once, at start + k periods', () => {
    const s = new FrameSchedule(1000n, PERIOD, 30);
    expect(s.due(1000n)).toEqual({ slots: [1000n], skipped: 0 });
    expect(s.due(1000n + PERIOD - 1n)).toEqual({ slots: [], skipped: 0 });
    expect(s.msUntilNext(1000n + PERIOD - 1_000_000n)).toBeCloseTo(1, 9);
    expect(s.due(1000n + PERIOD)).toEqual({ slots: [1000n + PERIOD], skipped: 0 });
  });

  it('hands out every frame a stall held up, oldest first', () => {
    const s = new FrameSchedule(0n, PERIOD, 30);
    s.due(0n);
    const { slots, skipped } = s.due(12n * PERIOD + 5n);
    expect(skipped).toBe(0);
    expect(slots).toEqual(Array.from({ length: 12 }, (_, k) => BigInt(k + 1) * PERIOD));
    expect(s.msUntilNext(12n * PERIOD + 5n)).toBeGreaterThan(0);
  });

  it('gives up the frames older than the backlog holds and says how many', () => {
    const s = new FrameSchedule(0n, PERIOD, 30);
    s.due(0n);
    const { slots, skipped } = s.due(100n * PERIOD);
    expect(skipped).toBe(70);
    expect(slots).toHaveLength(30);
    expect(slots[0]).toBe(71n * PERIOD);
    expect(slots.at(-1)).toBe(100n * PERIOD);
  });
});

describe('the virtual NatNet server under a stalled event loop', () => {
  const servers: VirtualNatNetServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop();
  });

  it('stamps a frame with the camera time it was due, and its transmit time with when it left', () => {
    const server = new VirtualNatNetServer({ rigidBodies: [{ id: 1, name: 'Tool' }], multicast: false });
    servers.push(server);
    const sent = vi.spyOn(server.transport, 'sendFrame');
    // Due once the server's clock has run past the exposure latency, sent after 50 ms of other
    // work on the thread.
    block(20);
    const due = monotonicNanoseconds();
    block(50);
    server.step(due);
    const decoded = decodePacket(sent.mock.calls[0]![0], server.transport.version);
    if (!decoded.ok || decoded.message.kind !== 'frame') throw new Error('not a frame');
    const f = decoded.message;
    const freq = BigInt(server.transport.clockFrequency);
    // 4 ms exposure latency before the due time; the transmit stamp is at least 50 ms later.
    expect(f.cameraMidExposure).toBe(server.transport.ticksAt(due) - (4n * freq) / 1000n);
    expect(f.transmit - f.cameraMidExposure).toBeGreaterThanOrEqual((54n * freq) / 1000n);
    expect(f.timestamp).toBeCloseTo(Number(f.cameraMidExposure) / Number(freq), 9);
  });

  it('sends the frames a stall held up, numbered and due one period apart, and counts them late', async () => {
    const server = new VirtualNatNetServer({
      rigidBodies: [{ id: 1, name: 'Tool' }],
      multicast: false,
      commandPort: 0,
      dataPort: 0,
    });
    servers.push(server);
    const frames: SentFrame[] = [];
    server.onFrameSent((f) => frames.push(f));
    await server.start();
    await server.nextFrameSent();
    await server.nextFrameSent();
    // A planning step's synchronous work on this thread: no timer runs for 100 ms.
    block(100);
    const before = frames.length;
    // The first timer after the stall sends the whole backlog before anything else runs.
    await server.nextFrameSent();
    await new Promise((resolve) => setImmediate(resolve));
    const burst = frames.slice(before);
    // 100 ms is 12 periods: at least 11 frames were due and unsent when the loop ran again.
    expect(burst.length).toBeGreaterThanOrEqual(11);
    expect(server.lateness.framesLate).toBeGreaterThanOrEqual(10);
    // Numbered one by one, each due one period after the one before, but where the camera clock
    // jumped over frames never taken (none unless the machine held this process off for another
    // 150 ms): the jumps add up to the frames skipped.
    let jumped = 0n;
    for (let k = 1; k < frames.length; k++) {
      expect(frames[k]!.frameNumber - frames[k - 1]!.frameNumber).toBe(1);
      const step = frames[k]!.dueAtNs - frames[k - 1]!.dueAtNs;
      expect(step % PERIOD).toBe(0n);
      jumped += step / PERIOD - 1n;
    }
    expect(jumped).toBe(BigInt(server.lateness.framesSkipped));
  });
});
