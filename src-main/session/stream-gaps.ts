/**
 * How evenly a run's device streams arrived, from its log, and where the longest silence of each
 * came from. A gap in what the console received has three possible sources, and the log tells
 * them apart by what came after it:
 * - `lost`: the source numbered samples in between that never arrived (frame numbers, or the
 *   controller's clock, advanced by more than one sample across the gap);
 * - `late`: the next sample in sequence came, followed at once by a backlog of the samples made
 *   meanwhile: they were made on time and delivered or read late (a stalled receiver, a send
 *   queue that drained late);
 * - `paused`: the next sample in sequence came with no backlog after it: the source made nothing
 *   while the console heard nothing (for the frames of a server that stamps them, its own
 *   timestamp advanced with the gap too).
 * A source numbered afresh (a restarted Motive) or reordered across the gap is `renumbered`.
 * `parapush log info` prints it; the dry-runs bench reports it per run.
 */
import type { MessageOf } from './channels';
import type { SessionLog } from './reader';

export type GapCause = 'lost' | 'late' | 'paused' | 'renumbered';

/** One received sample: when it arrived (s, the console's clock), its number and its source's time. */
export interface StreamSample {
  receivedAt: number;
  /** The source's sample number (a NatNet frame number); null when the source numbers none. */
  number: number | null;
  /** The source's own time of the sample (s); null when it was not recorded. */
  sourceTime: number | null;
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
  cause: GapCause;
}

export interface StreamGaps {
  samples: number;
  /** The median gap, s: the stream's period as received. */
  p50: number;
  p99: number;
  max: number;
  longest: LongestGap | null;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** Gaps of a stream in arrival order; null for fewer than two samples. */
export function streamGaps(samples: readonly StreamSample[]): StreamGaps | null {
  if (samples.length < 2) return null;
  const gaps = samples.slice(1).map((s, i) => s.receivedAt - samples[i]!.receivedAt);
  const sorted = [...gaps].sort((a, b) => a - b);
  const period = percentile(sorted, 0.5);
  const i = gaps.indexOf(sorted.at(-1)!) + 1;
  const before = samples[i - 1]!;
  const after = samples[i]!;
  const sourceAdvance =
    before.sourceTime !== null && after.sourceTime !== null ? after.sourceTime - before.sourceTime : null;
  const advance = sampleAdvance(samples, before, after);
  let backlog = 0;
  while (i + backlog + 1 < samples.length && gaps[i + backlog]! < period / 2) backlog++;
  const gap = gaps[i - 1]!;
  return {
    samples: samples.length,
    p50: period,
    p99: percentile(sorted, 0.99),
    max: gap,
    longest: {
      gap,
      at: after.receivedAt,
      number: after.number,
      advance,
      sourceAdvance,
      backlog,
      cause: cause(),
    },
  };

  function cause(): GapCause {
    if (advance < 1) return 'renumbered';
    if (advance > 1) return 'lost';
    // The source stamped the next sample as late as it arrived: it made it late.
    if (after.number !== null && sourceAdvance !== null && sourceAdvance >= gap / 2) return 'paused';
    // Samples the source would have made meanwhile had it kept its period.
    const missed = Math.round(gap / period) - 1;
    return backlog >= Math.max(1, Math.floor(missed / 2)) ? 'late' : 'paused';
  }
}

/**
 * Samples the source made from `before` to `after`: by frame number (a signed 32-bit counter, as
 * Motive's, so it wraps), else by its clock over its own median step.
 */
function sampleAdvance(samples: readonly StreamSample[], before: StreamSample, after: StreamSample): number {
  if (before.number !== null && after.number !== null) return (after.number - before.number) | 0;
  if (before.sourceTime === null || after.sourceTime === null) return 1;
  const steps = samples
    .slice(1)
    .map((s, k) => (s.sourceTime ?? NaN) - (samples[k]!.sourceTime ?? NaN))
    .filter((d) => d > 0)
    .sort((a, b) => a - b);
  if (steps.length === 0) return 1;
  return Math.round((after.sourceTime - before.sourceTime) / percentile(steps, 0.5));
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
      frames.push({ receivedAt: f.receivedAt, number: f.frameNumber, sourceTime: f.timestamp ?? null });
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
  ].join(', ');
  return `p50 ${ms(g.p50)}, p99 ${ms(g.p99)}, max ${ms(g.max)}${where}: ${l.cause} (${detail})`;
}
