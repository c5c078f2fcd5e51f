import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, type NatNetMessage } from '../../src-main/mocap/packet';
import type { NatNetVersion } from '../../src-main/mocap/version';
import { richFrame, richModelDefs } from './samples';

function roundTrip(
  m: NatNetMessage,
  v: NatNetVersion,
): { bytes: Uint8Array; again: Uint8Array; decoded: NatNetMessage } {
  const bytes = encodePacket(m, v);
  const result = decodePacket(bytes, v);
  if (!result.ok) throw new Error(result.error);
  return { bytes, again: encodePacket(result.message, v), decoded: result.message };
}

describe('encode/decode round trip', () => {
  const versions: [string, NatNetVersion, boolean][] = [
    ['3.0', [3, 0, 0, 0], false],
    ['3.1', [3, 1, 0, 0], false],
    ['4.0', [4, 0, 0, 0], false],
    ['4.1', [4, 1, 0, 0], true],
  ];

  it.each(versions)('frame, NatNet %s: byte-exact and value-exact', (_name, v, v41) => {
    const frame: NatNetMessage = { kind: 'frame', ...richFrame(v41) };
    const { bytes, again, decoded } = roundTrip(frame, v);
    expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    expect(decoded).toEqual(frame);
  });

  it('4.1 frames are not readable as 3.x and the other way round (section sizes change the layout)', () => {
    const bytes41 = encodePacket({ kind: 'frame', ...richFrame(true) }, [4, 1, 0, 0]);
    const bytes30 = encodePacket({ kind: 'frame', ...richFrame(false) }, [3, 0, 0, 0]);
    expect(decodePacket(bytes41, [3, 0, 0, 0]).ok).toBe(false);
    expect(decodePacket(bytes30, [4, 1, 0, 0]).ok).toBe(false);
    expect(bytes41.byteLength).toBeGreaterThan(bytes30.byteLength);
  });

  it.each([
    ['3.0', [3, 0, 0, 0], { markerNames: false, offsetOrientation: false, opaque: false }],
    ['4.0', [4, 0, 0, 0], { markerNames: true, offsetOrientation: false, opaque: false }],
    ['4.1', [4, 1, 0, 0], { markerNames: true, offsetOrientation: false, opaque: true }],
    ['4.2', [4, 2, 0, 0], { markerNames: true, offsetOrientation: true, opaque: true }],
  ] as const)('model definitions, NatNet %s', (_name, v, opts) => {
    const defs: NatNetMessage = { kind: 'modelDef', ...richModelDefs(opts) };
    const { bytes, again, decoded } = roundTrip(defs, v);
    expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    expect(decoded).toEqual(defs);
  });

  it('server info, requests, responses and the empty messages', () => {
    const messages: NatNetMessage[] = [
      {
        kind: 'serverInfo',
        appName: 'Parapush virtual Motive',
        appVersion: [3, 1, 0, 0],
        natNetVersion: [4, 1, 0, 0],
        clockFrequency: 10_000_000,
        dataPort: 1511,
        multicast: false,
        multicastAddress: '239.255.42.99',
        hasConnectionInfo: true,
      },
      { kind: 'request', command: 'FrameRate' },
      { kind: 'response', bytes: Uint8Array.from([0, 0, 240, 66]) },
      { kind: 'messageString', text: 'hello' },
      { kind: 'echoRequest', clientTime: 2n ** 63n + 5n },
      { kind: 'echoResponse', clientTime: 7n, serverTicks: 2n ** 64n - 1n },
      { kind: 'keepAlive' },
      { kind: 'requestModelDef' },
      { kind: 'disconnect' },
      { kind: 'unrecognizedRequest' },
    ];
    for (const m of messages) {
      const { bytes, again, decoded } = roundTrip(m, [4, 1, 0, 0]);
      expect(decoded).toEqual(m);
      expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it('rejects a header whose byte count disagrees with the packet and unsupported versions', () => {
    const bytes = encodePacket({ kind: 'request', command: 'x' }, [3, 0, 0, 0]);
    expect(decodePacket(bytes.subarray(0, bytes.length - 1), [3, 0, 0, 0])).toMatchObject({
      ok: false,
      messageId: 2,
    });
    expect(decodePacket(bytes, [2, 10, 0, 0]).ok).toBe(false);
  });
});
