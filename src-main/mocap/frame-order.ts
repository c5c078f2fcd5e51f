/**
 * Motion-capture frames must come in order, from one numbering. Numbers are NatNet's signed 32-bit
 * frame counter, compared as serial numbers (RFC 1982), so the counter's wrap-around from
 * 2^31 - 1 to -2^31 is a step forward.
 *
 * - A step forward no larger than the frames that could have been exposed since the newest frame
 *   arrived (MAX_FRAME_RATE, with FRAME_BUNCHING for frames that arrive bunched) is new: lost frames
 *   leave a gap, nothing more.
 * - A repeat of the newest number brings nothing new (the scene binding ages it as a frozen
 *   stream); with other contents it is a second sender (`duplicate-number`).
 * - Any other number belongs to another numbering: lower (a replay, a reordered datagram, a
 *   restarted Motive numbering afresh) or far ahead (Motive resuming after a pause, or a sender
 *   that raised the numbers). Its frames are dropped unread. It is taken as the new numbering only
 *   once it has kept increasing in steps a camera could make for RESTART_CONFIRM seconds, far
 *   beyond the staleness limit, with the current numbering silent meanwhile: a run stops on the
 *   silence first, and a few frames never pass for a restart.
 * - The current numbering going on while another one is being seen is two numberings at once,
 *   which one Motive cannot send (`two-numberings`): the other numbering is forgotten, and the
 *   judgement says so (`sign`), so that a run stops and none arms on such a stream.
 */
import { FRAME_BUNCHING, MAX_FRAME_RATE, RESTART_CONFIRM } from '#contract/safety-limits';
import type { SpoofSign } from './spoof-signs';

/** Serial-number difference b - a of two signed 32-bit counters: positive when b is newer. */
export function frameDelta(a: number, b: number): number {
  return (b - a) | 0;
}

/** The largest step forward a camera clock can make between two arrivals `dt` seconds apart (frames). */
function maxStep(dt: number): number {
  return 1 + Math.floor((Math.max(0, dt) + FRAME_BUNCHING) * MAX_FRAME_RATE);
}

/**
 * new: taken; repeated: the newest number again; old: dropped, below the newest; unconfirmed:
 * dropped, far ahead of the newest; restart / jump: another (lower / higher) numbering taken.
 */
export type FrameVerdict = 'new' | 'repeated' | 'old' | 'unconfirmed' | 'restart' | 'jump';

interface OtherNumbering {
  /** Local time (s) it was first seen, its latest number and that frame's arrival. */
  since: number;
  last: number;
  lastAt: number;
}

export class FrameOrder {
  private newest: number | undefined;
  private newestAt = 0;
  /** What the newest frame carried (a caller's fingerprint of its contents), if given. */
  private newestContent: string | undefined;
  private other: OtherNumbering | undefined;
  /** Frames dropped as older than the newest (a replay, a reorder, an unconfirmed restart). */
  dropped = 0;
  /** Frames dropped as too far ahead of the newest (an unconfirmed jump). */
  unconfirmed = 0;
  /** Frames whose number repeated the newest. */
  repeated = 0;
  /** Signs of a second sender found so far. */
  signs = 0;
  /** The sign of a second sender the latest judgement found, if any. */
  sign: Omit<SpoofSign, 'at'> | undefined;

  /**
   * Judges frame `n`, arrived at `at` (local s); `content` fingerprints what it carries, so a
   * repeated number with other contents is told from a frozen one. 'new', 'restart' and 'jump'
   * frames become the newest.
   */
  judge(n: number, at: number, content?: string): FrameVerdict {
    this.sign = undefined;
    if (!Number.isInteger(n)) {
      this.dropped++;
      return 'old';
    }
    const newest = this.newest;
    if (newest === undefined) return this.take(n, at, content, 'new');
    const d = frameDelta(newest, n);
    if (d === 0) {
      this.repeated++;
      if (content !== undefined && this.newestContent !== undefined && content !== this.newestContent)
        this.found('duplicate-number', `frame ${n} came twice with different contents`);
      return 'repeated';
    }
    if (d > 0 && d <= maxStep(at - this.newestAt)) {
      const o = this.other;
      if (o)
        this.found(
          'two-numberings',
          frameDelta(newest, o.last) < 0
            ? `frame ${o.last} came after frame ${newest}, and the stream went on with frame ${n} (out of order)`
            : `frame ${o.last} came ${frameDelta(newest, o.last)} frames ahead of frame ${newest}, and the stream went on with frame ${n}`,
        );
      return this.take(n, at, content, 'new');
    }
    const o = this.other;
    const step = o ? frameDelta(o.last, n) : 0;
    if (o && step > 0 && step <= maxStep(at - o.lastAt)) {
      o.last = n;
      o.lastAt = at;
      if (at - o.since >= RESTART_CONFIRM) return this.take(n, at, content, d > 0 ? 'jump' : 'restart');
    } else {
      this.other = { since: at, last: n, lastAt: at };
    }
    if (d > 0) {
      this.unconfirmed++;
      return 'unconfirmed';
    }
    this.dropped++;
    return 'old';
  }

  private take(n: number, at: number, content: string | undefined, verdict: FrameVerdict): FrameVerdict {
    this.newest = n;
    this.newestAt = at;
    this.newestContent = content;
    this.other = undefined;
    return verdict;
  }

  private found(kind: SpoofSign['kind'], detail: string): void {
    this.signs++;
    this.sign = { kind, detail };
  }
}

/** A frame's rigid bodies as a fingerprint for FrameOrder.judge: ids, positions, orientations. */
export function bodiesFingerprint(
  bodies: readonly { id: number; position: readonly number[]; orientation: readonly number[] }[],
): string {
  return bodies.map((b) => `${b.id}:${b.position.join(',')}:${b.orientation.join(',')}`).join(';');
}
