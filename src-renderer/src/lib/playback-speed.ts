/**
 * Playback speed as the operator sets it: 0.1x to 10x, the range the console API accepts (the
 * `playback.speed` command schema is the judge, so the UI and the core cannot disagree).
 */
import { commandSchema } from '#contract/console-api';

export const MIN_PLAYBACK_SPEED = 0.1;
export const MAX_PLAYBACK_SPEED = 10;
/** The one-click speeds beside the speed field. */
export const PRESET_SPEEDS = [0.1, 0.5, 1, 2, 5, 10] as const;

/** The speed typed by the operator, or why it cannot be used. */
export function parseSpeed(text: string): { speed: number } | { problem: string } {
  const trimmed = text.trim().replace(/[x×]$/i, '');
  const speed = trimmed === '' ? NaN : Number(trimmed);
  const ok = commandSchema.safeParse({ type: 'playback.speed', speed }).success;
  return ok
    ? { speed }
    : { problem: `speed must be between ${MIN_PLAYBACK_SPEED}× and ${MAX_PLAYBACK_SPEED}×` };
}

export function formatSpeed(speed: number): string {
  return `${Number(speed.toPrecision(3))}×`;
}
