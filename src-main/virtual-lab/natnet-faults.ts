/**
 * Faults the virtual NatNet server can inject, to exercise the console's handling of a bad
 * motion-capture stream. Seeded, so a failing run can be repeated exactly.
 */
import { z } from 'zod';

const probability = z.number().min(0).max(1);

export const natNetFaultsSchema = z
  .object({
    /** Standard deviation of Gaussian noise on each position coordinate (m) and on yaw (rad). */
    positionNoise: z.number().min(0).default(0),
    yawNoise: z.number().min(0).default(0),
    /** Extra delay before each packet leaves, s. */
    latency: z.number().min(0).default(0),
    /** The old name, in ms: a lab config that still has it is refused, saying what to write instead. */
    latencyMs: z.never({ error: 'renamed: write "latency" in seconds (e.g. 0.005 for 5 ms)' }).optional(),
    /** Probability that a frame is not sent at all (the frame number still advances). */
    dropRate: probability.default(0),
    /** Rigid-body names streamed with the tracking-valid bit cleared. */
    lostTracking: z.array(z.string()).default([]),
    /** Probability that a sent packet has random bytes flipped or is cut short. */
    corruptRate: probability.default(0),
    /**
     * Probability that a frame is held back and delivered after the next one, as a network that
     * reorders datagrams does (UDP keeps no order): the client sees 100, 102, 101, 103, ...
     */
    reorderRate: probability.default(0),
    /**
     * Old frames instead of new ones, at the normal rate: Motive streams the last `replay` frames
     * it sent again and again, in order, each under its own frame number and with its own poses
     * (2: 100, 101, 100, 101, ...), as a looping playback of the take just recorded does. The
     * live numbering runs on meanwhile, so the stream resumes past a gap. 0: off.
     */
    replay: z.number().int().min(0).max(1200).default(0),
    /**
     * A frozen Motive, at the normal rate: 'frame' repeats the last frame built before the freeze
     * (same frame number, same poses); 'poses' numbers each frame afresh but repeats its poses
     * bit for bit, without the residual jitter a live camera system always has.
     */
    freeze: z.enum(['off', 'frame', 'poses']).default('off'),
    seed: z.number().int().default(1),
  })
  .strict();

export type NatNetFaults = z.infer<typeof natNetFaultsSchema>;
export type NatNetFaultsInput = z.input<typeof natNetFaultsSchema>;

export const NO_FAULTS: NatNetFaults = natNetFaultsSchema.parse({});

/** mulberry32 plus Box-Muller: uniform and normal draws from one seed. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  uniform(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  normal(): number {
    const u = Math.max(this.uniform(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }
}

/** A damaged copy of a packet: a few flipped bytes, or the tail cut off. */
export function corrupt(packet: Uint8Array, random: SeededRandom): Uint8Array {
  if (random.uniform() < 0.5) return packet.slice(0, Math.floor(random.uniform() * packet.byteLength));
  const out = packet.slice();
  const flips = 1 + Math.floor(random.uniform() * 8);
  for (let i = 0; i < flips; i++) out[Math.floor(random.uniform() * out.byteLength)]! ^= 0xff;
  return out;
}
