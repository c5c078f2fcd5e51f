/**
 * When a real run may be armed: the one rule the run itself (run/supervised-run.ts), the Run
 * view's Arm button and the Setup view's checklist all follow. Every check the run needs before
 * anything moves must be green. The gripper's own check is different: the run readies the gripper
 * only after the operator arms (it grips the pusher, or opens a gripper scene's fingers), so that
 * check cannot be green before Arm; it is judged after Arm, and the run checks every check again,
 * that one included, before its supervisor arms. Arm never waits on what only Arm can bring about.
 */
import type { PreflightReportPayload, RunStatus } from './console-api';

export type PreflightCheck = PreflightReportPayload['checks'][number];

/** The checks the run makes true only after the operator arms, and judges then. */
const AFTER_ARM: ReadonlySet<PreflightCheck['id']> = new Set(['pusher-held', 'gripper-open']);

/** Whether the run judges this check only after the operator arms (it readies the gripper then). */
export function judgedAfterArm(id: PreflightCheck['id']): boolean {
  return AFTER_ARM.has(id);
}

export interface ArmReadiness {
  /** Every check the run needs before Arm is green. */
  ready: boolean;
  /** The red checks that keep Arm off, in checklist order. */
  blocking: PreflightCheck[];
  /** The checks judged after Arm (the gripper's), whatever they read now. */
  afterArm: PreflightCheck[];
  /** Why Arm is off, in the operator's words; null when ready. */
  reason: string | null;
}

/** Whether the checklist lets a real run be armed now, and if not, why. */
export function armReadiness(report: Pick<PreflightReportPayload, 'checks'> | null): ArmReadiness {
  if (!report)
    return {
      ready: false,
      blocking: [],
      afterArm: [],
      reason: 'no pre-flight checks yet: the lab is not connected',
    };
  const afterArm = report.checks.filter((c) => judgedAfterArm(c.id));
  const blocking = report.checks.filter((c) => !c.ok && !judgedAfterArm(c.id));
  return {
    ready: blocking.length === 0,
    blocking,
    afterArm,
    reason:
      blocking.length === 0
        ? null
        : `${blocking.length} pre-flight check(s) red: ${blocking.map((c) => `${c.label}: ${c.reason}`).join('; ')}`,
  };
}

/** The Arm button: whether it is on and, always, why (or what pressing it does). */
export interface ArmButton {
  enabled: boolean;
  why: string;
}

/**
 * The Arm button for a run status and the checklist now: on only while a real run waits for the
 * operator and every check it needs before Arm is green; otherwise off, with the reason.
 */
export function armButton(
  run: RunStatus,
  report: PreflightReportPayload | null,
  playback = false,
): ArmButton {
  if (playback) return { enabled: false, why: 'a recorded session is playing back' };
  const active = run.phase === 'starting' || run.phase === 'running' || run.phase === 'paused';
  if (run.mode !== 'real' || !active)
    return { enabled: false, why: 'no real run is waiting: Start real run first, then Arm' };
  if (run.armed) return { enabled: false, why: 'the run is armed' };
  if (!run.awaitingArm)
    return {
      enabled: false,
      why: 'the run is getting ready (lab, workers, first checks): Arm follows once it waits for you',
    };
  const r = armReadiness(report);
  if (!r.ready) return { enabled: false, why: r.reason! };
  const later = r.afterArm.map((c) => c.label.toLowerCase()).join(', ');
  return {
    enabled: true,
    why: `checks green; after Arm the run readies the gripper and checks it${later ? ` (${later})` : ''} before the arm moves`,
  };
}
