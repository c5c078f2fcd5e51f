/**
 * A recorded run's prediction error as the Sessions view shows it: per executed control, how far
 * the planner's predicted end state was from the observed one (the log's
 * /planner/prediction-error), and its p50 and p95 over the run. SI units (m, rad).
 */
import { z } from 'zod';

const spread = z.object({ position: z.number(), yaw: z.number() }).strict();

export const runPredictionErrorSchema = z
  .object({
    steps: z.array(z.number().int()),
    /** m and rad per step: the largest object error. */
    position: z.array(z.number()),
    yaw: z.array(z.number()),
    p50: spread,
    p95: spread,
  })
  .strict();
export type RunPredictionError = z.infer<typeof runPredictionErrorSchema>;

/** The nearest-rank percentile q (0..100) of values; NaN for none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((q / 100) * sorted.length) - 1))]!;
}

/** The run's summary of its steps' errors; null when it has none. */
export function runPredictionError(
  steps: readonly { step: number; position: number; yaw: number }[],
): RunPredictionError | null {
  if (steps.length === 0) return null;
  const position = steps.map((s) => s.position);
  const yaw = steps.map((s) => s.yaw);
  return {
    steps: steps.map((s) => s.step),
    position,
    yaw,
    p50: { position: percentile(position, 50), yaw: percentile(yaw, 50) },
    p95: { position: percentile(position, 95), yaw: percentile(yaw, 95) },
  };
}
