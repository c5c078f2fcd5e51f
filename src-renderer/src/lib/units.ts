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
