/**
 * How well a calibration fits the points it was fitted to, and the one check of whether that is
 * good enough to run on: the pre-flight checklist and the calibration wizard's save ask the same.
 */
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/** Distances of the fitted points from their targets (m): RMS, largest, and how many pairs. */
export const residualSchema = z.object({ rms: finite, max: finite, pairs: z.number().int().min(0) }).strict();
export type Residual = z.infer<typeof residualSchema>;

/** The residuals of the point pairs' distances `errors` (m), in pair order. */
export function residualOf(errors: readonly number[]): Residual {
  const sum = errors.reduce((s, e) => s + e * e, 0);
  return { rms: Math.sqrt(sum / errors.length), max: Math.max(...errors), pairs: errors.length };
}

/**
 * How well a setup's calibrations place the pusher: as well as the worse of its two fits, motion
 * capture -> table and table -> robot base (RMS, m). A base calibration written by hand has no
 * residual and counts as exact.
 */
export function setupResidual(setup: {
  mocap: { residual: Residual };
  robot: { residual?: Residual | undefined };
}): number {
  return Math.max(setup.mocap.residual.rms, setup.robot.residual?.rms ?? 0);
}

/** Whether an RMS residual (m) is within the setup's limit (m), in the operator's words. */
export function checkResidual(rms: number, limit: number): { ok: boolean; reason: string } {
  const mm = (v: number): string => `${(v * 1000).toFixed(1)} mm`;
  return rms <= limit
    ? { ok: true, reason: `residual ${mm(rms)} (limit ${mm(limit)})` }
    : { ok: false, reason: `residual ${mm(rms)} is above the limit ${mm(limit)}` };
}
