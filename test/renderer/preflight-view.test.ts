/**
 * The Setup view's checklist words (issue 30, finding 7): between runs a check that only a run
 * can make true (the pusher held, the gripper open) is "at run start", not a failure, and the
 * workers are idle, not disconnected; during a run the same check failing is a failure.
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
  it('says a check the run does at its start will happen then, and nothing failed', () => {
    const rows = checklistRows(report(false), false);
    expect(rows.map((r) => r.result)).toEqual(['ok', 'at-start']);
    expect(rows[1]!.reason).toMatch(/each run grips the pusher at its start/);
    expect(checklistSummary(rows)).toMatch(/^Nothing failed\. 1 check\(s\) happen when a run starts/);
  });

  it('counts a real failure, and the same check as failed during a run', () => {
    expect(checklistSummary(checklistRows(report(false, false), false))).toBe(
      'Not ready: 1 check(s) failed (in red below).',
    );
    const during = checklistRows(report(false), true);
    expect(during[1]).toMatchObject({ result: 'fail', reason: 'not checked' });
    expect(checklistSummary(checklistRows(report(true), false))).toBe(
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
  });
});
