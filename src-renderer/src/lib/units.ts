/** The UI shows millimetres and degrees; everything behind it is metres and radians. */
export const mmFromM = (m: number): number => m * 1000;
export const mFromMm = (mm: number): number => mm / 1000;
export const degFromRad = (rad: number): number => (rad * 180) / Math.PI;
export const radFromDeg = (deg: number): number => (deg * Math.PI) / 180;

/** Rounds for display so 0.1 m shows as 100, not 100.00000000000001. */
export function display(value: number, decimals = 2): string {
  const r = Number(value.toFixed(decimals));
  return String(Object.is(r, -0) ? 0 : r);
}

/** Parses a number typed by the operator; null when it is not one. */
export function parseField(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const v = Number(trimmed);
  return Number.isFinite(v) ? v : null;
}

/**
 * The scene editor's resolution: 0.1 mm and 0.1 deg, still stored in metres and radians, so a
 * drag saves 0.3001, not 0.30008937779305606.
 */
export const LENGTH_STEP = 1e-4;

/** A length rounded to 0.1 mm (m in, m out). */
export function roundLength(m: number): number {
  return Number((Math.round(m / LENGTH_STEP) * LENGTH_STEP).toFixed(4));
}

/** An angle rounded to 0.1 deg (rad in, rad out). */
export function roundAngle(rad: number): number {
  return radFromDeg(Math.round(degFromRad(rad) * 10) / 10);
}
