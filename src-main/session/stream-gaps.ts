/**
 * How evenly a run's device streams arrived, from its log, and where the longest silence of each
 * came from. The log tells the causes of a gap in what the console received apart by the
 * samples on either side of it and what came after it:
 * - `lost`: the source numbered samples in between that never arrived (frame numbers, or the
 *   controller's clock, advanced by more than one sample across the gap);
 * - `sent-late`: the next sample in sequence came, and the source's own latency stamp (NatNet's
 *   camera mid-exposure to transmit) says it sent it late, by at least half the gap: taken on
 *   time, held up in the source (a backlog of what it took meanwhile usually follows);
 * - `late`: the same backlog with no such stamp, or a short one: delivered or read late (the
 *   network, a stalled receiver);
 * - `paused`: the next sample in sequence came with no backlog after it: the source made nothing
 *   while the console heard nothing (for the frames of a server that stamps them, its own
 *   timestamp advanced with the gap too).
 * A source numbered afresh (a restarted Motive) or reordered across the gap is `renumbered`.
 * `parapush log info` prints it; the dry-runs bench reports it per run.
 */
import type { MessageOf } from './channels';
import type { SessionLog } from './reader';
import { quantileOfSorted } from '../common/quantile';

export type GapCause = 'lost' | 'sent-late' | 'late' | 'paused' | 'renumbered';

/** One received sample: when it arrived (s, the console's clock), its number and its source's time. */
export interface StreamSample {
  receivedAt: number;
  /** The source's sample number (a NatNet frame number); null when the source numbers none. */
  number: number | null;
  /** The source's own time of the sample (s); null when it was not recorded. */
  sourceTime: number | null;
  /** How long after taking the sample the source sent it, by its own clock (s); null when not recorded. */
  latency?: number | null;
}

export interface LongestGap {
  /** Receive gap, s. */
  gap: number;
  /** Arrival of the sample after the gap (s, the console's clock). */
  at: number;
  /** The sample number after the gap (null when the source numbers none). */
  number: number | null;
  /** Samples the source made across the gap by its own count (1: the next one came). */
  advance: number;
  /** The source's time across the gap (s); null when not recorded. */
  sourceAdvance: number | null;
  /** Samples that arrived right after it, less than half a period apart: a delivered backlog. */
  backlog: number;
  /** The source's latency stamp of the sample after the gap (s); null when not recorded. */
  latency: number | null;
  cause: GapCause;
}

export interface StreamGaps {
  samples: number;
  /** Receive gaps, s: median, 99th percentile (nearest rank) and largest. */
  p50: number;
  p99: number;
  max: number;
  longest: LongestGap | null;
}

/** Gaps of a stream in arrival order; null for fewer than two samples. */
export function streamGaps(samples: readonly StreamSample[]): StreamGaps | null {
  if (samples.length < 2) return null;
  const gaps = samples.slice(1).map((s, i) => s.receivedAt - samples[i]!.receivedAt);
  const sorted = [...gaps].sort((a, b) => a - b);
  // The source's own period where it stamps its samples: arrivals can come in bursts.
  const period = sourceStep(samples) ?? quantileOfSorted(sorted, 0.5);
  const i = gaps.indexOf(sorted.at(-1)!) + 1;
  const before = samples[i - 1]!;
  const after = samples[i]!;
  const sourceAdvance =
    before.sourceTime !== null && after.sourceTime !== null ? after.sourceTime - before.sourceTime : null;
  const advance = sampleAdvance(before, after, period);
  let backlog = 0;
  while (i + backlog + 1 < samples.length && gaps[i + backlog]! < period / 2) backlog++;
  const gap = gaps[i - 1]!;
  return {
    samples: samples.length,
    p50: quantileOfSorted(sorted, 0.5),
    p99: quantileOfSorted(sorted, 0.99),
    max: gap,
    longest: {
      gap,
      at: after.receivedAt,
      number: after.number,
      advance,
      sourceAdvance,
      backlog,
      latency: after.latency ?? null,
      cause: cause(),
    },
  };

  function cause(): GapCause {
    if (advance < 1) return 'renumbered';
    if (advance > 1) return 'lost';
    // The source stamped the next sample as late as it arrived: it made it late.
    if (after.number !== null && sourceAdvance !== null && sourceAdvance >= gap / 2) return 'paused';
    // Taken on time and, by the source's own stamp, sent late (with what it held up, if any).
    if ((after.latency ?? 0) >= gap / 2) return 'sent-late';
    // Samples the source would have made meanwhile had it kept its period.
    const missed = Math.round(gap / period) - 1;
    return backlog < Math.max(1, Math.floor(missed / 2)) ? 'paused' : 'late';
  }
}

/**
 * The source's own time per sample (s): the median step of its clock per sample number (per
 * sample when it numbers none); null when it stamps none.
 */
function sourceStep(samples: readonly StreamSample[]): number | null {
  const steps: number[] = [];
  for (let k = 1; k < samples.length; k++) {
    const a = samples[k - 1]!;
    const b = samples[k]!;
    if (a.sourceTime === null || b.sourceTime === null) continue;
    const n = a.number !== null && b.number !== null ? (b.number - a.number) | 0 : 1;
    const d = b.sourceTime - a.sourceTime;
    if (n >= 1 && d > 0) steps.push(d / n);
  }
  return steps.length === 0
    ? null
    : quantileOfSorted(
        steps.sort((x, y) => x - y),
        0.5,
      );
}

/**
 * Samples the source made from `before` to `after`: by frame number (a signed 32-bit counter, as
 * Motive's, so it wraps), else by its clock over its period.
 */
function sampleAdvance(before: StreamSample, after: StreamSample, period: number): number {
  if (before.number !== null && after.number !== null) return (after.number - before.number) | 0;
  if (before.sourceTime === null || after.sourceTime === null) return 1;
  return Math.round((after.sourceTime - before.sourceTime) / period);
}

export interface RunStreamGaps {
  /** /mocap/frame: NatNet frame numbers and, when logged, the server's frame timestamps. */
  mocap: StreamGaps | null;
  /** /robot/state: the controller's timestamps. */
  robot: StreamGaps | null;
}

/** The gaps of a log's motion-capture frames and robot states. */
export async function streamGapsOf(log: SessionLog): Promise<RunStreamGaps> {
  const frames: StreamSample[] = [];
  const states: StreamSample[] = [];
  for await (const m of log.messages(['/mocap/frame', '/robot/state'])) {
    if (m.topic === '/mocap/frame') {
      const f = m.message as MessageOf<'/mocap/frame'>;
      frames.push({
        receivedAt: f.receivedAt,
        number: f.frameNumber,
        sourceTime: f.timestamp ?? null,
        latency: f.systemLatency ?? null,
      });
    } else {
      const s = m.message as MessageOf<'/robot/state'>;
      states.push({ receivedAt: s.receivedAt, number: null, sourceTime: s.timestamp });
    }
  }
  return { mocap: streamGaps(frames), robot: streamGaps(states) };
}

const ms = (s: number): string => `${(s * 1000).toFixed(1)} ms`;

/** One line for `parapush log info`: the spread of the gaps and the longest one's cause. */
export function describeStreamGaps(g: StreamGaps): string {
  const l = g.longest!;
  const where = l.number !== null ? ` before frame ${l.number}` : '';
  const detail = [
    l.advance === 1 ? 'next in sequence' : `${l.advance} samples on`,
    l.sourceAdvance !== null ? `source time +${ms(l.sourceAdvance)}` : 'no source timestamps',
    `backlog ${l.backlog}`,
    ...(l.latency !== null ? [`sent ${ms(l.latency)} after exposure`] : []),
  ].join(', ');
  return `p50 ${ms(g.p50)}, p99 ${ms(g.p99)}, max ${ms(g.max)}${where}: ${l.cause} (${detail})`;
}
