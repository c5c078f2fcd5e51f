/**
 * What a run's motion capture went through, from its log: the stream's counters (the /mocap/stats
 * channel) at the run's end minus those at its start, so frames counted before the run on the
 * same lab link do not count.
 */
import type { MessageOf } from './channels';
import type { SessionLog } from './reader';

export interface MocapHealth {
  frames: number;
  /** Gaps in the numbering of the frames taken: never received, or too late. */
  droppedFrames: number;
  /** Frames dropped unread as older than the newest (replayed, reordered). */
  olderFrames: number;
  /** Frames dropped unread as too far ahead of the newest (a numbering jump not confirmed). */
  unconfirmedFrames: number;
  /** Frames that repeated the newest frame's number. */
  repeatedFrames: number;
  /** Motive restarts taken. */
  restarts: number;
  decodeErrors: number;
  foreignPackets: number;
  /** Signs of a second sender posing as Motive (mocap/spoof-signs.ts). */
  spoofSigns: number;
}

type Counters = MessageOf<'/mocap/stats'>;

/** The counts between two /mocap/stats messages. */
export function mocapHealthBetween(first: Counters, last: Counters): MocapHealth {
  const d = (k: keyof MocapHealth): number => last[k] - first[k];
  return {
    frames: d('frames'),
    droppedFrames: d('droppedFrames'),
    olderFrames: d('olderFrames'),
    unconfirmedFrames: d('unconfirmedFrames'),
    repeatedFrames: d('repeatedFrames'),
    restarts: d('restarts'),
    decodeErrors: d('decodeErrors'),
    foreignPackets: d('foreignPackets'),
    spoofSigns: d('spoofSigns'),
  };
}

/** The run's motion-capture health, or null for a log without the channel (no lab, or older). */
export async function mocapHealthOf(log: SessionLog): Promise<MocapHealth | null> {
  let first: Counters | undefined;
  let last: Counters | undefined;
  for await (const m of log.messages(['/mocap/stats'])) {
    first ??= m.message;
    last = m.message;
  }
  return first && last ? mocapHealthBetween(first, last) : null;
}

/** One line for `parapush log info`. */
export function describeMocapHealth(h: MocapHealth): string {
  return (
    `${h.frames} frames, ${h.droppedFrames} dropped, ${h.olderFrames} out of order, ` +
    `${h.repeatedFrames} repeated, ${h.restarts} restart(s), ${h.decodeErrors} bad packet(s)` +
    (h.unconfirmedFrames > 0 ? `, ${h.unconfirmedFrames} ahead of the numbering (dropped)` : '') +
    (h.foreignPackets > 0 ? `, ${h.foreignPackets} from other senders` : '') +
    (h.spoofSigns > 0 ? `, ${h.spoofSigns} sign(s) of spoofing` : '')
  );
}
