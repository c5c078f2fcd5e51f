/**
 * Fault injection in the virtual lab: a frozen Motive keeps sending the same frame (same number,
 * same poses), or new frame numbers with the same poses bit for bit, at the normal rate. Arrival
 * times alone look healthy; the run must still stop within the staleness limit, and say why.
 */
import { describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { labsPerTest, quickLabTask, runOnLab, stopCommandTimes } from '../helpers/virtual-lab';

const task = quickLabTask();

/** The supervisor's staleness limit (s) and the virtual server's frame period at 120 Hz (s). */
const STALENESS = 0.1;
const FRAME_PERIOD = 1 / 120;

const labs = labsPerTest();

/** The two ways Motive freezes, and the stop reason each must produce. */
const freezes = [
  { freeze: 'frame', reason: /^Motion capture frozen: frame \d+ repeated for \d+ ms$/ },
  {
    freeze: 'poses',
    reason: /^Motion capture frozen: \w+ pose repeated unchanged for \d+ ms \(frame \d+\)$/,
  },
] as const;

describe.each(freezes)('frozen motion capture in the virtual lab (freeze: $freeze)', ({ freeze, reason }) => {
  it('stops within the staleness limit plus one cycle of the first repeated frame, naming the freeze', async () => {
    const env = await labs.labAndLink();
    const stops = stopCommandTimes(env.lab.ur);
    // Send times: of the last frame before the freeze (its copies carry its age) and of the first
    // one after it; frame numbers sent after it.
    let frozenAt: number | undefined;
    let lastNewAt = 0;
    let lastNewNumber = -1;
    let firstRepeatAt: number | undefined;
    const repeatedNumbers: number[] = [];
    env.lab.natnet.onFrameSent((f) => {
      const now = monotonicSeconds();
      if (frozenAt === undefined) {
        lastNewAt = now;
        lastNewNumber = f.frameNumber;
        return;
      }
      repeatedNumbers.push(f.frameNumber);
      firstRepeatAt ??= now;
    });
    let started = false;
    const result = await runOnLab(env, task, {
      onStep: () => {
        if (started) return;
        started = true;
        // While the first control executes, Motive freezes: frames keep coming, nothing new in them.
        setTimeout(() => {
          env.lab.natnet.setFaults({ freeze });
          frozenAt = monotonicSeconds();
        }, 200);
      },
    });
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason).toMatchObject({
      code: 'mocap-frozen',
      repeated: freeze === 'frame' ? 'frame' : 'pose',
    });
    expect(result.reason).toMatch(reason);
    // Frames really kept arriving: arrival time alone would have judged the stream healthy.
    expect(repeatedNumbers.length).toBeGreaterThan(5);
    if (freeze === 'frame') expect(new Set(repeatedNumbers)).toEqual(new Set([lastNewNumber]));
    else expect(repeatedNumbers.every((n, i) => n === lastNewNumber + i + 1)).toBe(true);
    const decidedAt = result.supervisor.stoppedAt!;
    const stopAt = stops.find((t) => t >= decidedAt)!;
    // Not before the limit: the frozen frame was fresh when it first arrived (after its send).
    const age = stopAt - lastNewAt;
    expect(age, `stop ${(age * 1000).toFixed(1)} ms after the frozen frame`).toBeGreaterThanOrEqual(
      STALENESS,
    );
    // Limit from the first repeat: staleness + one 120 Hz frame + one 5 ms watchdog tick, with the
    // same scheduling slack for a loaded two-core machine as the dropout test.
    const latency = stopAt - firstRepeatAt!;
    expect(latency, `stop ${(latency * 1000).toFixed(1)} ms after the first repeat`).toBeLessThan(
      STALENESS + FRAME_PERIOD + 0.005 + 0.05,
    );
  });
});
