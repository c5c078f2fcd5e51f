/**
 * Where a stream's longest silence came from, told from what arrived after it: frames that never
 * came (numbers skip), frames made on time and delivered late (a backlog follows), or a source
 * that made nothing meanwhile (the next in sequence, alone). Synthetic arrival times, so the
 * answer is known; then read back from a recorded log as `parapush log info` reads it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionLog } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import {
  describeStreamGaps,
  streamGaps,
  streamGapsOf,
  type StreamSample,
} from '../../src-main/session/stream-gaps';
import { mocapFrame, robotState } from './sample-messages';

const PERIOD = 1 / 120;

/** Frames 1..n at 120 Hz; `edit` changes sample i (0-based) as it wishes. */
function frames(n: number, edit: (s: StreamSample, i: number) => StreamSample = (s) => s): StreamSample[] {
  return Array.from({ length: n }, (_, i) =>
    edit({ receivedAt: 10 + i * PERIOD, number: i + 1, sourceTime: null }, i),
  );
}

/** A stall of `stall` s before sample 30: every later sample arrives that much later. */
const stalled =
  (stall: number) =>
  (s: StreamSample, i: number): StreamSample =>
    i >= 30 ? { ...s, receivedAt: s.receivedAt + stall } : s;

describe('the longest gap of a stream', () => {
  it('is a paused source when the next frame in sequence comes alone (a stall of the lab thread)', () => {
    const g = streamGaps(frames(100, stalled(0.1)))!;
    expect(g.max).toBeCloseTo(0.1 + PERIOD, 9);
    expect(g.p50).toBeCloseTo(PERIOD, 9);
    expect(g.longest).toMatchObject({ number: 31, advance: 1, backlog: 0, cause: 'paused' });
  });

  it('is a late delivery when the frames made meanwhile follow at once', () => {
    // Frames 31..42 were sent on time but reach the console together 0.1 s late.
    const arrival = 10 + 29 * PERIOD + 0.1;
    const g = streamGaps(
      frames(100, (s, i) => (i >= 30 && i < 42 ? { ...s, receivedAt: arrival + (i - 30) * 1e-5 } : s)),
    )!;
    expect(g.longest).toMatchObject({ number: 31, advance: 1, backlog: 11, latency: null, cause: 'late' });
  });

  it("is a late send when that backlog's own latency stamps say the server held it (a stalled server)", () => {
    // Frames 31..42 were taken on time, and sent together 0.1 s late: each says how late.
    const arrival = 10 + 29 * PERIOD + 0.1;
    const g = streamGaps(
      frames(100, (s, i) => {
        const late = i >= 30 && i < 42;
        const receivedAt = late ? arrival + (i - 30) * 1e-5 : s.receivedAt;
        return { ...s, receivedAt, latency: 0.004 + receivedAt - s.receivedAt };
      }),
    )!;
    expect(g.longest).toMatchObject({ number: 31, advance: 1, backlog: 11, cause: 'sent-late' });
    expect(g.longest!.latency).toBeCloseTo(0.104 - PERIOD, 9);
  });

  it('is lost frames when the numbers skip across it', () => {
    const skipped = frames(100, (s, i) => (i >= 30 ? { ...stalled(0.1)(s, i), number: s.number! + 11 } : s));
    const g = streamGaps(skipped)!;
    expect(g.longest).toMatchObject({ number: 42, advance: 12, cause: 'lost' });
  });

  it("is a paused server when the frame's own timestamp advanced with the gap, backlog or not", () => {
    const g = streamGaps(
      frames(100, (s, i) => {
        const t = stalled(0.1)(s, i);
        return { ...t, sourceTime: t.receivedAt - 10 };
      }),
    )!;
    expect(g.longest).toMatchObject({ advance: 1, cause: 'paused' });
    expect(g.longest!.sourceAdvance).toBeCloseTo(0.1 + PERIOD, 9);
  });

  it('follows a frame counter across its signed 32-bit wrap', () => {
    // Frame 2^31 - 1 is the last before the gap; the next is numbered -2^31.
    const first = 2 ** 31 - 30;
    const g = streamGaps(frames(100, (s, i) => ({ ...stalled(0.1)(s, i), number: (first + i) | 0 })))!;
    expect(g.longest).toMatchObject({ number: -(2 ** 31), advance: 1, cause: 'paused' });
  });

  it('is renumbered across a restart of the source', () => {
    const g = streamGaps(frames(100, (s, i) => (i >= 30 ? { ...stalled(0.1)(s, i), number: i - 29 } : s)))!;
    expect(g.longest).toMatchObject({ number: 1, cause: 'renumbered' });
  });

  it("counts a controller's samples by its clock: one cycle on is a pause, many a loss", () => {
    const states = (skip: number): StreamSample[] =>
      Array.from({ length: 200 }, (_, i) => ({
        receivedAt: 5 + i * 0.002 + (i >= 100 ? 0.1 : 0),
        number: null,
        sourceTime: 1 + i * 0.002 + (i >= 100 ? skip : 0),
      }));
    expect(streamGaps(states(0))!.longest).toMatchObject({ advance: 1, cause: 'paused' });
    expect(streamGaps(states(0.1))!.longest).toMatchObject({ advance: 51, cause: 'lost' });
  });

  it('needs two samples', () => {
    expect(streamGaps(frames(1))).toBeNull();
  });
});

describe('the gaps of a recorded run', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function gapsOf(record: (r: SessionRecorder) => void) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-stream-gaps-'));
    dirs.push(dir);
    const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
    record(rec);
    await rec.close();
    const log = await SessionLog.open(rec.file);
    try {
      return await streamGapsOf(log);
    } finally {
      await log.close();
    }
  }

  it("reads the frames' numbers, arrivals and server timestamps, and the controller's clock", async () => {
    const gaps = await gapsOf((r) => {
      // The server stamps each frame as it sends it (its clock is 10 s behind the console's).
      for (const s of frames(60, stalled(0.1)))
        r.mocapFrame({ ...mocapFrame(s.number!, s.receivedAt), receivedAt: s.receivedAt }, s.receivedAt - 10);
      for (let i = 0; i < 50; i++) r.robotState({ ...robotState(1 + i * 0.002), receivedAt: 5 + i * 0.002 });
    });
    expect(gaps.mocap!.longest).toMatchObject({ number: 31, advance: 1, backlog: 0, cause: 'paused' });
    expect(gaps.mocap!.longest!.sourceAdvance).toBeCloseTo(0.1 + PERIOD, 9);
    expect(gaps.robot!.samples).toBe(50);
    expect(gaps.robot!.max).toBeCloseTo(0.002, 9);
    expect(describeStreamGaps(gaps.mocap!)).toBe(
      'p50 8.3 ms, p99 108.3 ms, max 108.3 ms before frame 31: paused (next in sequence, source time +108.3 ms, backlog 0)',
    );
  });

  it('reads a log whose frames carry no server timestamp (older logs)', async () => {
    const gaps = await gapsOf((r) => {
      for (const s of frames(10))
        r.mocapFrame({ ...mocapFrame(s.number!, s.receivedAt), receivedAt: s.receivedAt });
    });
    expect(gaps.mocap!.longest!.sourceAdvance).toBeNull();
    expect(gaps.robot).toBeNull();
  });
});
