/**
 * A small seeded random stream (sfc32 seeded through splitmix32) with Gaussian samples.
 *
 * Every consumer that must be reproducible on its own gets its own stream: the planner's
 * exploration noise and the execution world's process noise never share one, so changing how
 * many samples the planner draws does not change the noise the world applies (and vice versa).
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  /** Second Box-Muller sample, kept for the next normal() call. */
  private spare: number | null = null;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.nextUint32(); // mix the seed in before the first output
  }

  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.uniform();
  }

  /** Standard normal sample (Box-Muller). */
  normal(): number {
    if (this.spare !== null) {
      const v = this.spare;
      this.spare = null;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    const phi = 2 * Math.PI * this.uniform();
    this.spare = r * Math.sin(phi);
    return r * Math.cos(phi);
  }
}

/** Derives an independent seed from a parent seed and a label (FNV-1a over both). */
export function deriveSeed(parent: number, label: string | number): number {
  let h = 0x811c9dc5 ^ (parent >>> 0);
  h = Math.imul(h, 0x01000193) >>> 0;
  for (const ch of String(label)) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= parent >>> 16;
  return Math.imul(h, 0x01000193) >>> 0;
}
