/**
 * The pre-flight checklist and the links as the Setup view words them. Which checks must be green
 * before Arm and which are judged after it is contract/arm-readiness.ts's rule, the one the run
 * and the Arm button follow: every run readies the gripper (grips the pusher, or opens a gripper
 * scene's fingers) only once armed (a dry run arms itself), so until the run is armed that check
 * is not a failure but a step still to come: it reads "after Arm", with what will happen then.
 * Once a run is armed it is judged like every other check. The fine-model workers start with the
 * first run (and then stay up, warm, between runs).
 */
import type { Connection, PreflightReportPayload } from '#contract/console-api';
import { armReadiness, judgedAfterArm } from '#contract/arm-readiness';

type Check = PreflightReportPayload['checks'][number];

/** ok: green; fail: red; after-arm: not judged yet, the run does it (and checks it) once armed. */
export type CheckResult = 'ok' | 'fail' | 'after-arm';

export interface CheckRow {
  check: Check;
  result: CheckResult;
  /** The check's reason, or what the run will do for it. */
  reason: string;
}

/** What the run does once armed for the checks it makes true then. */
const doneAfterArm: Partial<Record<Check['id'], string>> = {
  'pusher-held':
    'judged after Arm: each run grips the pusher once armed (a dry run arms itself), then checks it',
  'gripper-open':
    'judged after Arm: each run activates and opens the gripper once armed (a dry run arms itself), then checks it',
};

/** The checklist's rows; `armed`: a run is armed now, so every check is judged as it reads. */
export function checklistRows(report: PreflightReportPayload, armed: boolean): CheckRow[] {
  return report.checks.map((check) => {
    if (check.ok) return { check, result: 'ok', reason: check.reason };
    const later = !armed && judgedAfterArm(check.id);
    return later
      ? { check, result: 'after-arm', reason: doneAfterArm[check.id] ?? check.reason }
      : { check, result: 'fail', reason: check.reason };
  });
}

/** The line above the checklist: ready to arm (the rule Arm follows), or what is red. */
export function checklistSummary(report: PreflightReportPayload, rows: CheckRow[]): string {
  const red = rows.filter((r) => r.result === 'fail').length;
  const later = rows.filter((r) => r.result === 'after-arm').length;
  if (red > 0) return `Not ready to arm: ${red} check(s) failed (in red below).`;
  if (later > 0 && armReadiness(report).ready)
    return `Ready to arm: ${later} check(s) are judged after Arm, when the run has readied the gripper; nothing moves before they are green too.`;
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
  // An error is never shown without its reason, wherever the state is shown.
  if (c.state === 'error') return `error: ${c.detail}`;
  return connectionState(c, runActive);
}
