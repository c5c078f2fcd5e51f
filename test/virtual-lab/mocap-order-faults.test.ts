/**
 * Fault injection in the virtual lab: motion-capture frames out of order. The virtual Motive
 * replays old frames at the normal rate (a looping playback of what it just streamed), or
 * restarts and numbers its frames from 1 again. Frames keep arriving in both, so arrival time
 * alone would judge the stream healthy: the client must drop the older frames and count them, and
 * the run must stop for stale motion capture within the staleness limit of the last new frame.
 * Times are what the virtual devices recorded (common/clock, s): frames as the server sent them,
 * STOP commands as the controller decoded them.
 */
import { describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { RESTART_CONFIRM } from '#contract/safety-limits';
import { labsPerTest, quickLabTask, runOnLab, stopCommandTimes } from '../helpers/virtual-lab';
import { waitUntil } from '../helpers/wait-until';

/** The supervisor's staleness limit (s) and the virtual server's frame period at 120 Hz (s). */
const STALENESS = 0.1;
const FRAME_PERIOD = 1 / 120;
/**
 * From the fault to the stop: the staleness limit, a frame, a 5 ms watchdog tick, and the same
 * scheduling slack for a loaded two-core machine as the other fault tests (s).
 */
const STOP_WITHIN = STALENESS + FRAME_PERIOD + 0.005 + 0.05;

const labs = labsPerTest();

/** A loop of 30 frames (250 ms) brings only older frames before the stop; a loop of 2 its newest again. */
const replays = [
  { replay: 30, code: 'mocap-stale', reason: /^Motion capture stale: .+ not seen for \d+ ms$/ },
  { replay: 2, code: 'mocap-frozen', reason: /^Motion capture frozen: frame \d+ repeated for \d+ ms$/ },
] as const;

describe.each(replays)(
  'replayed motion capture in the virtual lab (replay: $replay)',
  ({ replay, code, reason }) => {
    it('drops and counts the old frames and stops the run within the staleness limit of the last new one', async () => {
      const env = await labs.labAndLink();
      const { lab, link } = env;
      const stops = stopCommandTimes(lab.ur);
      let phase: 'live' | 'due' | 'replay' | 'live again' = 'live';
      let injectedAt = 0;
      let lastNew = { number: -1, at: 0 };
      const replayed: number[] = [];
      lab.natnet.onFrameSent((f) => {
        if (phase === 'live' || phase === 'due') lastNew = { number: f.frameNumber, at: monotonicSeconds() };
        else if (phase === 'replay') replayed.push(f.frameNumber);
      });
      let before = link.natnet.getStats();
      const result = await runOnLab({ link }, quickLabTask(), {
        onStep: () => {
          if (phase !== 'live') return;
          phase = 'due';
          // While the first control executes, Motive starts replaying what it just sent.
          setTimeout(() => {
            before = link.natnet.getStats();
            lab.natnet.setFaults({ replay });
            phase = 'replay';
            injectedAt = monotonicSeconds();
          }, 150);
        },
      });
      expect(phase, 'the fault was injected during the run').toBe('replay');
      expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
      expect(result.supervisor.stopReason?.code).toBe(code);
      expect(result.reason).toMatch(reason);
      // Frames really kept coming, each an old one: the loop of the last `replay` frames sent live.
      expect(replayed.length).toBeGreaterThan(5);
      expect(replayed.slice(0, replay)).toEqual(
        Array.from({ length: Math.min(replay, replayed.length) }, (_, i) => lastNew.number - replay + 1 + i),
      );
      const decidedAt = result.supervisor.stoppedAt!;
      // Stopped by the fault: a stall of this process on a loaded machine can stop a run earlier.
      expect(decidedAt, 's from the replay to the decision').toBeGreaterThan(injectedAt);
      const stopAt = stops.find((t) => t >= decidedAt)!;
      expect(stopAt, 'a stop reached the controller').toBeDefined();
      // Not before the limit: the last new frame was fresh when it arrived (after its send).
      const age = stopAt - lastNew.at;
      expect(age, `stop ${(age * 1000).toFixed(1)} ms after the last new frame`).toBeGreaterThanOrEqual(
        STALENESS,
      );
      const latency = stopAt - injectedAt;
      expect(latency, `stop ${(latency * 1000).toFixed(1)} ms after the replay began`).toBeLessThan(
        STOP_WITHIN,
      );

      // Motive goes live again: every replayed frame was counted as older or repeated, and the
      // live numbering that ran on meanwhile shows as a gap of as many frames.
      phase = 'live again';
      const sent = replayed.length;
      lab.natnet.setFaults({});
      await waitUntil('a new frame after the replay', () => link.poses()?.ok);
      // The client's counters reach this thread with the safety thread's statistics (every 250 ms).
      const counted = (): number => {
        const now = link.natnet.getStats();
        return now.olderFrames - before.olderFrames + (now.repeatedFrames - before.repeatedFrames);
      };
      // The gap is counted when the first live frame arrives, which can be a statistics message
      // after the one that brought the last replayed frame's count: wait for both.
      const gap = (): number => link.natnet.getStats().droppedFrames - before.droppedFrames;
      await waitUntil(`every replayed frame counted (${sent})`, () => counted() >= sent && gap() >= sent);
      const after = link.natnet.getStats();
      expect(counted()).toBe(sent);
      // The newest frame closes each loop: it repeats, every other replayed frame is older.
      const repeats = Math.floor(sent / replay);
      expect(after.repeatedFrames - before.repeatedFrames).toBe(repeats);
      expect(after.olderFrames - before.olderFrames).toBe(sent - repeats);
      expect(after.droppedFrames - before.droppedFrames).toBe(sent);
    });
  },
);

describe('a Motive restart in the virtual lab', () => {
  it('stops the run on the silence, then takes the new numbering once it has kept increasing', async () => {
    const env = await labs.labAndLink();
    const { lab, link } = env;
    const stops = stopCommandTimes(lab.ur);
    let restartedAt: number | undefined;
    let lastSent = { number: -1, at: 0 };
    // The highest number the restarted Motive sent: frames of the old numbering still on their way
    // to the client when it restarted (a loaded machine reads them late) are numbered above it.
    let restartedSent = 0;
    lab.natnet.onFrameSent((f) => {
      if (restartedAt === undefined || restartedAt < 0)
        lastSent = { number: f.frameNumber, at: monotonicSeconds() };
      else if (f.frameNumber < lastSent.number) restartedSent = Math.max(restartedSent, f.frameNumber);
    });
    // The restarted stream as it reaches the client: its frames dropped as old, then the first one
    // the estimator takes (it has judged the frame when this listener runs: it listens first).
    let lowDropped = 0;
    let firstLow: number | undefined;
    let accepted: { number: number; at: number } | undefined;
    link.natnet.on('frame', (_f, s) => {
      if (restartedAt === undefined || restartedAt < 0 || accepted || s.frameNumber > restartedSent) return;
      firstLow ??= s.receivedAt;
      if (link.poses()?.frameNumber === s.frameNumber) accepted = { number: s.frameNumber, at: s.receivedAt };
      else lowDropped++;
    });
    let before = link.natnet.getStats();
    let restart: Promise<void> | undefined;
    const result = await runOnLab({ link }, quickLabTask(), {
      onStep: () => {
        if (restartedAt !== undefined) return;
        restartedAt = -1;
        setTimeout(() => {
          before = link.natnet.getStats();
          restartedAt = monotonicSeconds();
          restart = lab.natnet.restart(0.3);
        }, 150);
      },
    });
    expect(restartedAt, 'Motive restarted during the run').toBeGreaterThan(0);
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason?.code).toBe('mocap-stale');
    expect(result.reason).toMatch(/^Motion capture stale: .+ not seen for \d+ ms$/);
    const decidedAt = result.supervisor.stoppedAt!;
    expect(decidedAt, 's from the restart to the decision').toBeGreaterThan(restartedAt!);
    const stopAt = stops.find((t) => t >= decidedAt)!;
    expect(stopAt, 'a stop reached the controller').toBeDefined();
    const silence = stopAt - lastSent.at;
    expect(silence, `stop ${(silence * 1000).toFixed(1)} ms after the last frame`).toBeGreaterThanOrEqual(
      STALENESS,
    );
    const latency = stopAt - restartedAt!;
    expect(latency, `stop ${(latency * 1000).toFixed(1)} ms after the restart`).toBeLessThan(STOP_WITHIN);

    // The client connects again (a restarted Motive forgot it); frames come numbered from 1.
    await restart;
    await waitUntil('the new numbering taken', () => accepted, { timeout: 15 });
    // The client's counters reach this thread with the safety thread's statistics (every 250 ms).
    await waitUntil('the restart counted', () => link.natnet.getStats().restarts > before.restarts);
    await waitUntil(
      `the dropped frames counted (${lowDropped})`,
      () => link.natnet.getStats().olderFrames - before.olderFrames >= lowDropped,
    );
    const after = link.natnet.getStats();
    expect(after.restarts - before.restarts).toBe(1);
    // Every frame of the new numbering before it was taken was dropped, and counted.
    expect(lowDropped).toBeGreaterThan(0);
    expect(after.olderFrames - before.olderFrames).toBe(lowDropped);
    // Taken after RESTART_CONFIRM of increasing numbers, not sooner.
    expect(accepted!.at - firstLow!).toBeGreaterThanOrEqual(RESTART_CONFIRM);
    expect(accepted!.number).toBeLessThan(lastSent.number);
    await waitUntil('fresh poses from the restarted Motive', () => link.poses()?.ok);
  });
});
