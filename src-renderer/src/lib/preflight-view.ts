/**
 * The pre-flight checklist and the links as the Setup view words them. Some checks can only be
 * true during a run: every run readies the gripper first (grips the pusher, or opens a gripper
 * scene's fingers), and the fine-model workers start with the first run (and then stay up, warm,
 * between runs). Until then those are not failures but steps still to come, so they read "at run start" with what will happen then;
 * while a run is in progress they are judged like every other check.
 */
import type { Connection, PreflightReportPayload } from '#contract/console-api';

type Check = PreflightReportPayload['checks'][number];

/** ok: green; fail: red; at-start: not judged yet, the next run does it (and checks it) first. */
export type CheckResult = 'ok' | 'fail' | 'at-start';

export interface CheckRow {
  check: Check;
  result: CheckResult;
  /** The check's reason, or what the run will do for it. */
  reason: string;
}

/** What each run does at its start for the checks it makes true then. */
const doneAtStart: Partial<Record<Check['id'], string>> = {
  'pusher-held': 'not checked yet: each run grips the pusher at its start, then checks it is held',
  'gripper-open': 'not checked yet: each run activates and opens the gripper at its start, then checks it',
};

export function checklistRows(report: PreflightReportPayload, runActive: boolean): CheckRow[] {
  return report.checks.map((check) => {
    if (check.ok) return { check, result: 'ok', reason: check.reason };
    const atStart = runActive ? undefined : doneAtStart[check.id];
    return atStart
      ? { check, result: 'at-start', reason: atStart }
      : { check, result: 'fail', reason: check.reason };
  });
}

/** The line above the checklist: ready, what is left to the run's start, or what is red. */
export function checklistSummary(rows: CheckRow[]): string {
  const red = rows.filter((r) => r.result === 'fail').length;
  const later = rows.filter((r) => r.result === 'at-start').length;
  if (red > 0) return `Not ready: ${red} check(s) failed (in red below).`;
  if (later > 0)
    return `Nothing failed. ${later} check(s) happen when a run starts; a real run moves nothing until every check is green and the operator arms it.`;
  return 'All checks green: a real run may be armed.';
}

/** A link's state in words: workers not started yet are idle until the first run, not disconnected. */
export function connectionState(c: Connection, runActive: boolean): string {
  if (c.id === 'workers' && c.state === 'disconnected' && !runActive)
    return 'idle (start with the first run)';
  return c.state.replace('-', ' ');
}

/**
 * The same in the status bar's few words, so its four links fit their box in every phase; the
 * link's detail (its tooltip) and the Setup view say the rest.
 */
export function connectionStateShort(c: Connection, runActive: boolean): string {
  if (c.state === 'disconnected') return c.id === 'workers' && !runActive ? 'idle' : 'no link';
  return connectionState(c, runActive);
}
