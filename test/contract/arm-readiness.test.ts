/**
 * The one rule for "ready to arm" (contract/arm-readiness.ts), which the run, the Run view's Arm
 * button and the Setup view's checklist all follow: every check the run needs before Arm green,
 * the gripper's check judged after Arm, and Arm always saying why it is off.
 */
import { describe, expect, it } from 'vitest';
import { idleRunStatus, type PreflightReportPayload, type RunStatus } from '#contract/console-api';
import { armButton, armReadiness, judgedAfterArm } from '#contract/arm-readiness';

type Check = PreflightReportPayload['checks'][number];
const check = (id: Check['id'], ok: boolean, reason = ok ? 'fine' : 'bad'): Check => ({
  id,
  label: `check ${id}`,
  ok,
  reason,
});
/** The checklist as it reads while a real run waits for Arm: all green but the pusher, not gripped yet. */
const waiting: PreflightReportPayload = {
  ok: false,
  checks: [
    check('mocap', true),
    check('robot-mode', true),
    check('safety-mode', true),
    check('program', true),
    check('pusher-held', false, 'pusher not held: gripper not activated'),
    check('calibration', true),
    check('scene', true),
    check('calibration-agreement', true),
  ],
};
const awaiting: RunStatus = {
  ...idleRunStatus,
  phase: 'starting',
  mode: 'real',
  startedAt: 1,
  awaitingArm: true,
};

describe('ready to arm', () => {
  it("judges the gripper's checks after Arm, and only those", () => {
    expect(judgedAfterArm('pusher-held')).toBe(true);
    expect(judgedAfterArm('gripper-open')).toBe(true);
    for (const id of ['mocap', 'robot-mode', 'safety-mode', 'program', 'calibration', 'scene'] as const)
      expect(judgedAfterArm(id)).toBe(false);
  });

  it('is ready with every check green but the pusher, which the run grips only after Arm', () => {
    const r = armReadiness(waiting);
    expect(r).toMatchObject({ ready: true, blocking: [], reason: null });
    expect(r.afterArm.map((c) => c.id)).toEqual(['pusher-held']);
  });

  it('is not ready with any other check red, and names each red check with its reason', () => {
    const red = {
      ok: false,
      checks: waiting.checks.map((c) =>
        c.id === 'mocap' || c.id === 'calibration' ? { ...c, ok: false, reason: `${c.id} off` } : c,
      ),
    };
    const r = armReadiness(red);
    expect(r.ready).toBe(false);
    expect(r.blocking.map((c) => c.id)).toEqual(['mocap', 'calibration']);
    expect(r.reason).toBe(
      '2 pre-flight check(s) red: check mocap: mocap off; check calibration: calibration off',
    );
  });

  it('is not ready without a checklist (no lab connected)', () => {
    expect(armReadiness(null)).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/not connected/),
    });
  });
});

describe('the Arm button', () => {
  it('is on while a real run waits for Arm and the checks it needs are green', () => {
    const b = armButton(awaiting, waiting);
    expect(b.enabled).toBe(true);
    expect(b.why).toMatch(/after Arm the run readies the gripper and checks it \(check pusher-held\)/);
  });

  it('is off with the reason in every other case', () => {
    const red = {
      ok: false,
      checks: waiting.checks.map((c) => (c.id === 'program' ? { ...c, ok: false, reason: 'bad' } : c)),
    };
    const cases: [RunStatus, PreflightReportPayload | null, boolean, RegExp][] = [
      [idleRunStatus, waiting, false, /no real run is waiting: Start real run first/],
      [{ ...awaiting, mode: 'dry' }, waiting, false, /no real run is waiting/],
      [{ ...awaiting, awaitingArm: false }, waiting, false, /getting ready/],
      [{ ...awaiting, awaitingArm: undefined }, waiting, false, /getting ready/],
      [
        { ...awaiting, phase: 'running', armed: true, awaitingArm: false },
        waiting,
        false,
        /the run is armed/,
      ],
      [awaiting, red, false, /^1 pre-flight check\(s\) red: check program: bad$/],
      [awaiting, null, false, /not connected/],
      [awaiting, waiting, true, /playing back/],
      [{ ...awaiting, phase: 'aborted' }, waiting, false, /no real run is waiting/],
    ];
    for (const [run, report, playback, why] of cases) {
      const b = armButton(run, report, playback);
      expect(b.enabled, JSON.stringify(run)).toBe(false);
      expect(b.why).toMatch(why);
    }
  });
});
