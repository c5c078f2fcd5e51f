/**
 * The one mapping from how a run ended (its task's result, or what ended it first) onto the run's
 * outcome, and the lifecycle's use of it for the operator's abort and a safety stop.
 */
import { describe, expect, it } from 'vitest';
import { taskResultSchema } from '#contract/planner-events';
import { runOutcomeOf, type RunEnd } from '#contract/run-end';
import { advanceRun, type RunLifecycle } from '#contract/run-lifecycle';

describe('runOutcomeOf', () => {
  it("finishes a run only on the task's success and aborts it only on an abort", () => {
    const byResult = Object.fromEntries(
      taskResultSchema.options.map((result) => [result, runOutcomeOf({ cause: 'task', result })]),
    );
    expect(byResult).toEqual({
      success: 'finished',
      failure: 'failed',
      'action-limit': 'failed',
      'time-limit': 'failed',
      aborted: 'aborted',
    });
  });

  it('fails a run never armed, stopped for safety or broken off by an error; aborts the operator’s', () => {
    const ends: RunEnd[] = [
      { cause: 'not-armed' },
      { cause: 'safety-stop' },
      { cause: 'error' },
      { cause: 'operator-abort' },
    ];
    expect(ends.map(runOutcomeOf)).toEqual(['failed', 'failed', 'failed', 'aborted']);
  });

  it('is what the lifecycle ends a run with on an abort and on a safety stop', () => {
    const running: RunLifecycle = { state: 'running' };
    const after = (t: ReturnType<typeof advanceRun>) => (t.ok ? t.next : null);
    expect(after(advanceRun(running, { type: 'abort', reason: 'a' }))).toMatchObject({
      outcome: runOutcomeOf({ cause: 'operator-abort' }),
    });
    expect(after(advanceRun(running, { type: 'safety-stop', reason: 's' }))).toMatchObject({
      outcome: runOutcomeOf({ cause: 'safety-stop' }),
    });
  });
});
