/**
 * The WAFR noise readings bench (bench/noise.ts): each reading's kick, and what it does to a push.
 */
import { describe, expect, it } from 'vitest';
import { kickStd, noiseSpread } from '../../bench/noise';

describe('WAFR noise readings', () => {
  it("turns b |u| into each reading's per-step kick", () => {
    expect(kickStd('std', 0.075, 0.1, 0.001)).toBeCloseTo(0.0075, 15);
    expect(kickStd('variance-per-step', 0.075, 0.1, 0.001)).toBeCloseTo(Math.sqrt(0.0075), 15);
    expect(kickStd('variance-per-second', 0.075, 0.1, 0.001)).toBeCloseTo(Math.sqrt(0.0075e-3), 15);
    // Read per second, halving the step halves each kick's variance: the spread stays.
    expect(kickStd('variance-per-second', 0.075, 0.1, 0.0005) ** 2).toBeCloseTo(
      kickStd('variance-per-second', 0.075, 0.1, 0.001) ** 2 / 2,
      15,
    );
  });

  it('scatters a push more at higher b and speed, and most when b |u| is a per-step variance', async () => {
    const { rows } = await noiseSpread(4);
    const at = (reading: string, b: number, speed: number) =>
      rows.find((r) => r.reading === reading && r.b === b && r.speed === speed)!;
    expect(rows).toHaveLength(18);
    for (const r of rows) expect(r.pushed).toBeGreaterThan(0);
    // Same seeds: a bigger kick scatters the object further across the push.
    expect(at('std', 0.1, 0.02).across).toBeGreaterThan(at('std', 0.05, 0.02).across);
    expect(at('std', 0.075, 0.1).across).toBeGreaterThan(at('std', 0.075, 0.02).across);
    for (const speed of [0.02, 0.1])
      expect(at('variance-per-step', 0.075, speed).across).toBeGreaterThan(
        10 * at('std', 0.075, speed).across,
      );
    // Fast pushes: the standard-deviation reading grows with |u|, the per-second one with its root.
    expect(at('std', 0.075, 0.1).across).toBeGreaterThan(at('variance-per-second', 0.075, 0.1).across);
  }, 300_000);
});
