/**
 * Fault injection in the virtual lab: a corrupted robot state. The virtual UR reports its tool
 * pose as NaN while its safety and robot modes stay normal, so nothing but the numbers says it is
 * wrong; comparisons with NaN are all false, so a check written as "x > limit: stop" would pass it.
 * The supervisor must stop on the first such state, naming the value, and no command may follow.
 */
import { describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import { labsPerTest, quickLabTask, runOnLab, stopCommandTimes } from '../helpers/virtual-lab';

/**
 * One RTDE period of the slowest controller (a CB3 at 125 Hz: 8 ms) for the corrupted state to
 * reach the supervisor, and scheduling slack for a loaded two-core machine, as in the other fault
 * tests (s).
 */
const STOP_WITHIN = 0.008 + 0.04;

const labs = labsPerTest();

describe('a corrupted robot state in the virtual lab', () => {
  it('stops the run on the first NaN tool pose, naming it, within an RTDE period', async () => {
    const env = await labs.labAndLink();
    const { lab } = env;
    const stops = stopCommandTimes(lab.ur);
    // Every motion command the controller decodes, with its time (s, common/clock).
    const twists: number[] = [];
    lab.ur.rtde.on('input', (w) => {
      const i = w.names.indexOf(INPUT_NAMES.command);
      if (i >= 0 && w.values[i] === CommandCode.SPEED) twists.push(w.receivedAt);
    });
    let injectedAt: number | undefined;
    const result = await runOnLab(env, quickLabTask(), {
      onStep: () => {
        if (injectedAt !== undefined) return;
        injectedAt = -1;
        // While the first control executes, the controller's tool-pose report goes bad.
        setTimeout(() => {
          injectedAt = monotonicSeconds();
          lab.ur.controller.injectCorruptToolPose();
        }, 150);
      },
    });
    expect(injectedAt, 'the fault was injected during the run').toBeGreaterThan(0);
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason).toMatchObject({ code: 'non-finite', source: 'robot state' });
    expect(result.reason).toMatch(/^Non-finite robot state: tool pose \[NaN, NaN, NaN, NaN, NaN, NaN\]/);
    // The decision and the stop it put on the wire, both on the one monotonic clock.
    const decidedAt = result.supervisor.stoppedAt!;
    expect(decidedAt).toBeGreaterThan(injectedAt!);
    const stopAt = stops.find((t) => t >= decidedAt)!;
    expect(stopAt, 'a stop reached the controller').toBeDefined();
    expect(stopAt - injectedAt!, 's from the corrupted state to the stop').toBeLessThan(STOP_WITHIN);
    // Nothing moved the arm after the stop: twists and the stop share the RTDE connection, in
    // order, so a twist decoded after the stop was sent after it. (One sent just before the
    // decision, in the safety thread, can still be decoded after the decision's instant.)
    expect(twists.filter((t) => t > stopAt)).toEqual([]);
  });
});
