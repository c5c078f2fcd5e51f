/**
 * Motion-capture frames must come in order: a frame numbered below the newest one seen is old (a
 * replayed or reordered packet) and is dropped, and so is a repeated number's content (the scene
 * binding ages it as a frozen stream). Numbers are NatNet's signed 32-bit frame counter, compared
 * as serial numbers (RFC 1982), so the counter's wrap-around from 2^31 - 1 to -2^31 is a step
 * forward. Motive restarting numbers its frames afresh, from below the last number: such a
 * sequence is taken as the new numbering only once it has kept increasing for RESTART_CONFIRM
 * seconds, far beyond the staleness limit, so a run stops on the silence first and a replay of a
 * few old frames never passes for a restart.
 */

/** How long a lower numbering must keep increasing before it is taken for a Motive restart (s). */
export const RESTART_CONFIRM = 0.5;

/** Serial-number difference b - a of two signed 32-bit counters: positive when b is newer. */
export function frameDelta(a: number, b: number): number {
  return (b - a) | 0;
}

export type FrameVerdict = 'new' | 'repeated' | 'old' | 'restart';

export class FrameOrder {
  private newest: number | undefined;
  /** A lower numbering that has been increasing since `since` (local s), up to `last`. */
  private restart: { since: number; last: number } | undefined;
  /** Frames dropped as older than the newest (a replay, a reorder, an unconfirmed restart). */
  dropped = 0;
  /** Frames whose number repeated the newest. */
  repeated = 0;

  /** Judges frame `n`, arrived at `at` (local s); 'new' and 'restart' frames become the newest. */
  judge(n: number, at: number): FrameVerdict {
    if (!Number.isInteger(n)) {
      this.dropped++;
      return 'old';
    }
    if (this.newest === undefined || frameDelta(this.newest, n) > 0) {
      this.newest = n;
      this.restart = undefined;
      return 'new';
    }
    if (n === this.newest) {
      this.repeated++;
      return 'repeated';
    }
    const r = this.restart;
    if (r && frameDelta(r.last, n) > 0) {
      r.last = n;
      if (at - r.since >= RESTART_CONFIRM) {
        this.newest = n;
        this.restart = undefined;
        return 'restart';
      }
    } else {
      this.restart = { since: at, last: n };
    }
    this.dropped++;
    return 'old';
  }
}
