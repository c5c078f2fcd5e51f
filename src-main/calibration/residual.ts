/**
 * How well a calibration fits the points it was fitted to, and the one check of whether that is
 * good enough to run on: the pre-flight checklist and the calibration wizard's save ask the same.
 */
import { z } from 'zod';

const distance = z
  .number()
  .refine(Number.isFinite, 'must be a finite number')
  .refine((v) => v >= 0, 'must be 0 or more (a distance)');

/** Distances of the fitted points from their targets (m): RMS, largest, and how many pairs. */
export const residualSchema = z
  .object({ rms: distance, max: distance, pairs: z.number().int().min(0) })
  .strict()
  .refine((r) => r.rms <= r.max * (1 + 1e-12) + 1e-15, {
    message: 'rms cannot be above max (the RMS of distances is at most the largest)',
    path: ['rms'],
  })
  .refine((r) => r.pairs > 0 || (r.rms === 0 && r.max === 0), {
    message: 'a residual of 0 pairs is 0 (nothing was fitted)',
    path: ['rms'],
  });
export type Residual = z.infer<typeof residualSchema>;

/**
 * Why a stored residual is not the one its points give (`recomputed`), or null when it is: the
 * points are the evidence, the residual only a summary of them.
 */
export function residualMismatch(stored: Residual, recomputed: Residual, tolerance: number): string | null {
  const mm = (v: number): string => `${(v * 1000).toFixed(3)} mm`;
  if (
    stored.pairs === recomputed.pairs &&
    Math.abs(stored.rms - recomputed.rms) <= tolerance &&
    Math.abs(stored.max - recomputed.max) <= tolerance
  )
    return null;
  return (
    `the stored residual (rms ${mm(stored.rms)}, max ${mm(stored.max)}, ${stored.pairs} pairs) is not what ` +
    `its ${recomputed.pairs} points give (rms ${mm(recomputed.rms)}, max ${mm(recomputed.max)})`
  );
}

/** The residuals of the point pairs' distances `errors` (m), in pair order. */
export function residualOf(errors: readonly number[]): Residual {
  const sum = errors.reduce((s, e) => s + e * e, 0);
  return { rms: Math.sqrt(sum / errors.length), max: Math.max(...errors), pairs: errors.length };
}

/** Whether an RMS residual (m) is within the setup's limit (m), in the operator's words. */
export function checkResidual(rms: number | null, limit: number): { ok: boolean; reason: string } {
  const mm = (v: number): string => `${(v * 1000).toFixed(1)} mm`;
  if (rms === null)
    return {
      ok: false,
      reason: 'the residual cannot be checked: the setup keeps no calibration points (calibrate again)',
    };
  return rms <= limit
    ? { ok: true, reason: `residual ${mm(rms)} (limit ${mm(limit)})` }
    : { ok: false, reason: `residual ${mm(rms)} is above the limit ${mm(limit)}` };
}
