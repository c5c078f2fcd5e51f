/** `physics fit`'s report for people: the estimates with their uncertainty, warnings, errors before and after. */
import type { ErrorSummary } from './check';
import type { FitRun } from './fit-run';
import { FITTABLE_MEANING } from '#contract/physics-profile';

const mm = (m: number): string => (m * 1000).toFixed(2);
const deg = (rad: number): string => ((rad * 180) / Math.PI).toFixed(2);
const errors = (s: ErrorSummary): string =>
  `position p50 ${mm(s.position.p50)} mm, p95 ${mm(s.position.p95)} mm; yaw p50 ${deg(s.yaw.p50)} deg, p95 ${deg(s.yaw.p95)} deg`;

export function fitReport(run: FitRun, profileFile: string, sceneFile: string): string {
  const { fit, heldOut } = run;
  const lines = ['Fitted (1-sigma interval; multipliers of the scene’s values):'];
  for (const e of fit.estimates) {
    const value =
      e.parameter === 'latency'
        ? `${(e.value * 1000).toFixed(1)} ms (${(e.low * 1000).toFixed(1)}-${(e.high * 1000).toFixed(1)})`
        : `x${e.value.toFixed(3)} (${e.low.toFixed(3)}-${e.high.toFixed(3)})`;
    lines.push(
      `  ${e.parameter.padEnd(8)} ${value}${e.identifiable ? '' : '  NOT DETERMINED'}  ${FITTABLE_MEANING[e.parameter]}`,
    );
  }
  lines.push('', 'What the logs determine (directions of the error surface, steepest first):');
  const sorted = [...fit.directions].sort((a, b) => a.sigma - b.sigma);
  for (const d of sorted)
    lines.push(`  ${d.combination || '(none)'}: ±${(d.sigma * 100 * Math.log(4)).toFixed(1)} %`);
  if (fit.warnings.length > 0) lines.push('', ...fit.warnings.map((w) => `WARNING: ${w}`));
  lines.push(
    '',
    `Multi-step prediction error, fitted runs: before ${errors(fit.training.before)}`,
    `                                          after  ${errors(fit.training.after)}`,
  );
  if (heldOut)
    lines.push(
      `Held-out runs (${heldOut.runs}):                      before ${errors(heldOut.before)}`,
      `                                          after  ${errors(heldOut.after)}`,
    );
  else lines.push('No run held out (one log): no validation.');
  lines.push('', `${fit.evaluations} evaluations. Profile: ${profileFile}; fitted scene: ${sceneFile}`);
  return `${lines.join('\n')}\n`;
}
