/**
 * Axes and legend values of the live charts (components/Plot.svelte): whole-number ticks for
 * counts, a range around a single point, the latest value for a legend nobody hovers.
 */

/** Tick steps of a counted axis (iterations, steps): whole numbers only. */
export const integerTicks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];

/** Fewest pixels between labelled ticks of a log axis: labels 1, 2 and 5 of each decade where they fit. */
export const LOG_AXIS_SPACE = 16;

/**
 * The x range of a counted axis: the data's own range, widened by one on each side of a single
 * point (never below 0 for counts that start at 0 or later), so one point is not drawn on 0 to 100.
 */
export function integerRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (max > min) return [min, max];
  const lo = min >= 0 ? Math.max(0, min - 1) : min - 1;
  return [lo, max + 1];
}

/** The last finite value of a series; null when it has none. */
export function latestFinite(values: readonly (number | null | undefined)[] | undefined): number | null {
  if (!values) return null;
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) return v;
  }
  return null;
}

/** A legend value: three significant figures, whole numbers as they are; "–" when there is none. */
export function formatLegendValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2);
  return String(Number(v.toPrecision(3)));
}
