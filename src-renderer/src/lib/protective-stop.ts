/**
 * Whether the connected robot is in a protective stop, as the pre-flight checklist reports it: the
 * safety-mode check red with the robot's own safety mode PROTECTIVE_STOP in its reason. Only for
 * what the Setup view offers; the core checks the robot itself before recovering anything.
 */
import type { PreflightReportPayload } from '#contract/console-api';

export function inProtectiveStop(preflight: PreflightReportPayload | null): boolean {
  const check = preflight?.checks.find((c) => c.id === 'safety-mode');
  return check !== undefined && !check.ok && /\bPROTECTIVE_STOP\b/.test(check.reason);
}
