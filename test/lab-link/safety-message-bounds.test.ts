/**
 * The safety thread trusts no number from the main thread (issue 47, item 8): a staleness age, a
 * streamed control's duration or period out of its bounds is a malformed message, which stops an
 * active run, instead of quietly switching a stop off.
 */
import { describe, expect, it } from 'vitest';
import {
  CONTROL_PROGRAM_DEFAULTS,
  MAX_CONTROL_DURATION,
  SAFETY_MESSAGE_LIMITS,
} from '#contract/safety-limits';
import { supervisorConfigSchema, toSafetySchema } from '../../src-main/lab-link/safety-thread/messages';
import { SafetyCore } from '../../src-main/lab-link/safety-thread/core';

const stream = (fields: object) => ({
  type: 'stream',
  id: 1,
  vx: 0.01,
  vy: 0,
  yawRate: 0,
  duration: 1,
  period: 0.008,
  ...fields,
});

describe('bounds of the safety thread messages', () => {
  it('takes the Supervisor defaults and the slack tests use', () => {
    expect(supervisorConfigSchema.safeParse({}).success).toBe(true);
    const config = { lookahead: 0.2, mocapMaxAge: 0.1, robotStateMaxAge: 1, commandMaxGap: 1 };
    expect(supervisorConfigSchema.parse(config)).toEqual(config);
    expect(toSafetySchema.safeParse(stream({})).success).toBe(true);
  });

  it.each([
    ['mocapMaxAge', 1e9],
    ['mocapMaxAge', SAFETY_MESSAGE_LIMITS.maxAge + 1e-9],
    ['robotStateMaxAge', 2],
    ['commandMaxGap', 60],
    ['mocapMaxAge', 0],
    ['lookahead', 1e-9],
    ['lookahead', 1e6],
  ])('refuses %s = %s in supervise.config', (field, value) => {
    expect(supervisorConfigSchema.safeParse({ [field]: value }).success).toBe(false);
    const message = { type: 'supervise', scene: {}, config: { [field]: value } };
    const issues = toSafetySchema.safeParse(message).error?.issues ?? [];
    expect(issues.some((i) => i.path.join('.') === `config.${field}`)).toBe(true);
  });

  it('bounds a streamed control by the longest control and the controller watchdog', () => {
    expect(SAFETY_MESSAGE_LIMITS.maxDuration).toBe(MAX_CONTROL_DURATION);
    expect(SAFETY_MESSAGE_LIMITS.period.max).toBe(CONTROL_PROGRAM_DEFAULTS.watchdogTimeout);
    expect(toSafetySchema.safeParse(stream({ duration: MAX_CONTROL_DURATION })).success).toBe(true);
    for (const bad of [{ duration: 3600 }, { duration: -1 }, { period: 1e-9 }, { period: 1 }, { period: 0 }])
      expect(toSafetySchema.safeParse(stream(bad)).success, JSON.stringify(bad)).toBe(false);
    const fingers = (duration: number) => ({ type: 'fingers', openingSpeed: 0.01, duration });
    expect(toSafetySchema.safeParse(fingers(1)).success).toBe(true);
    expect(toSafetySchema.safeParse(fingers(1e9)).success).toBe(false);
  });

  it('answers an out-of-bounds supervise with no supervisor to arm', async () => {
    const posted: unknown[] = [];
    const core = new SafetyCore((m) => posted.push(m));
    await core.receive({ type: 'supervise', scene: {}, config: { mocapMaxAge: 1e9 } });
    await core.receive({ type: 'arm', report: { ok: true, checks: [] } });
    expect(posted).toEqual([{ type: 'error', message: 'arm: no run is supervised (supervise first)' }]);
  });
});
