/**
 * Truncated and bit-flipped variants of every captured packet (and of synthetic 4.1 packets):
 * the decoder must return { ok: false } or a message, never throw and never loop for long.
 */
import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket } from '../../src-main/mocap/packet';
import type { NatNetVersion } from '../../src-main/mocap/version';
import { fixture, fixtureNames } from './fixtures';
import { richFrame, richModelDefs } from './samples';

/** mulberry32: a small seeded generator so a failing variant can be reproduced. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('decoder fuzz', () => {
  it('survives >= 100k truncated or bit-flipped packets', () => {
    const v3: NatNetVersion = [3, 0, 0, 0];
    const v41: NatNetVersion = [4, 1, 0, 0];
    const seeds: { bytes: Uint8Array; v: NatNetVersion }[] = [
      ...fixtureNames().map((n) => ({ bytes: fixture(n), v: v3 })),
      { bytes: encodePacket({ kind: 'frame', ...richFrame(true) }, v41), v: v41 },
      {
        bytes: encodePacket(
          {
            kind: 'modelDef',
            ...richModelDefs({ markerNames: true, offsetOrientation: false, opaque: true }),
          },
          v41,
        ),
        v: v41,
      },
    ];
    const random = rng(12345);
    const versions: NatNetVersion[] = [v3, v41, [4, 0, 0, 0], [4, 2, 0, 0]];
    let decoded = 0;
    let rejected = 0;
    const variants = 120_000;
    const started = performance.now();
    for (let i = 0; i < variants; i++) {
      const seed = seeds[i % seeds.length]!;
      let bytes: Uint8Array;
      if (i % 3 === 0) {
        // Truncated, with the header left claiming the original size or patched to agree.
        bytes = seed.bytes.slice(0, Math.floor(random() * seed.bytes.length));
        if (random() < 0.5 && bytes.length >= 4) {
          bytes[2] = (bytes.length - 4) & 0xff;
          bytes[3] = (bytes.length - 4) >> 8;
        }
      } else {
        bytes = seed.bytes.slice();
        const flips = 1 + Math.floor(random() * 4);
        for (let k = 0; k < flips; k++) {
          // Most flips past the header so they reach the payload decoders.
          const at = Math.floor(random() * bytes.length);
          bytes[at]! ^= 1 << Math.floor(random() * 8);
        }
      }
      // Mostly the seed's own version, sometimes a mismatched one.
      const v = random() < 0.8 ? seed.v : versions[Math.floor(random() * versions.length)]!;
      const result = decodePacket(bytes, v);
      if (result.ok) decoded++;
      else {
        rejected++;
        expect(result.error).not.toMatch(/decoder failure/);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    expect(decoded + rejected).toBe(variants);
    // Both outcomes occur: flips in float bytes decode, flips in counts are rejected.
    expect(decoded).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(1000);
    // A generous sanity bound (not a benchmark): a hang or quadratic blow-up would exceed it.
    expect(seconds).toBeLessThan(25);
  });
});
