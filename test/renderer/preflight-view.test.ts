/**
 * The Setup view's checklist words (issue 30, finding 7; issue 45): until a run is armed, a check
 * that only the armed run can make true (the pusher held, the gripper open) is "after Arm", not a
 * failure, and the workers are idle, not disconnected; once armed the same check failing is a
 * failure. A link in error says why wherever its state is shown.
 */
import { describe, expect, it } from 'vitest';
import type { Connection, PreflightReportPayload } from '#contract/console-api';
import {
  checklistRows,
  checklistSummary,
  connectionState,
  connectionStateShort,
} from '../../src-renderer/src/lib/preflight-view';

const report = (pusherHeld: boolean, mocapOk = true): PreflightReportPayload => ({
  ok: false,
  checks: [
    { id: 'mocap', label: 'Motion capture fresh', ok: mocapOk, reason: mocapOk ? 'fresh' : 'stale 300 ms' },
    { id: 'pusher-held', label: 'Pusher held by the gripper', ok: pusherHeld, reason: 'not checked' },
  ],
});

describe('pre-flight checklist words', () => {
  it('says a check the run does once armed is judged after Arm, and the run is ready to arm', () => {
    const rows = checklistRows(report(false), false);
    expect(rows.map((r) => r.result)).toEqual(['ok', 'after-arm']);
    expect(rows[1]!.reason).toMatch(/each run grips the pusher once armed/);
    expect(checklistSummary(report(false), rows)).toMatch(/^Ready to arm: 1 check\(s\) are judged after Arm/);
  });

  it('counts a real failure, and the same check as failed once the run is armed', () => {
    expect(checklistSummary(report(false, false), checklistRows(report(false, false), false))).toBe(
      'Not ready to arm: 1 check(s) failed (in red below).',
    );
    const armed = checklistRows(report(false), true);
    expect(armed[1]).toMatchObject({ result: 'fail', reason: 'not checked' });
    expect(checklistSummary(report(true), checklistRows(report(true), false))).toBe(
      'All checks green: a real run may be armed.',
    );
  });

  it('calls idle workers idle between runs and disconnected during one', () => {
    const workers: Connection = {
      id: 'workers',
      label: 'Workers',
      state: 'disconnected',
      latency: null,
      detail: '1 fine-model worker process(es) start with the first run and stay warm',
    };
    expect(connectionState(workers, false)).toBe('idle (start with the first run)');
    expect(connectionState(workers, true)).toBe('disconnected');
    expect(connectionState({ ...workers, id: 'ur5' }, false)).toBe('disconnected');
    // The status bar's few words.
    expect(connectionStateShort(workers, false)).toBe('idle');
    expect(connectionStateShort({ ...workers, id: 'ur5' }, false)).toBe('no link');
    expect(connectionStateShort({ ...workers, state: 'connected' }, true)).toBe('connected');
    // An error says why, in the status bar too.
    expect(
      connectionStateShort({ ...workers, id: 'ur5', state: 'error', detail: 'RTDE link lost' }, false),
    ).toBe('error: RTDE link lost');
  });
});
