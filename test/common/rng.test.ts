import { describe, expect, it } from 'vitest';
import { deriveSeed, Rng } from '../../src-main/common/rng';

describe('seeded random stream', () => {
  it('repeats for a seed, differs between seeds, and has standard normal moments', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const xs = Array.from({ length: 20000 }, () => a.normal());
    expect(Array.from({ length: 20000 }, () => b.normal())).toEqual(xs);
    expect(c.normal()).not.toBe(xs[0]);
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
    const variance = xs.reduce((s, v) => s + (v - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
    expect(deriveSeed(1, 'a')).not.toBe(deriveSeed(1, 'b'));
    expect(deriveSeed(1, 'a')).toBe(deriveSeed(1, 'a'));
  });
});
