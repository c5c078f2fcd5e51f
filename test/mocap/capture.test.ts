import { mkdtempSync, rmSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCapture } from '../../src-main/mocap/capture';
import { readCapture, CaptureFormatError } from '../../src-main/mocap/pcap';
import { CaptureDecoder, replayJson, replayLine, type ReplayFrame } from '../../src-main/mocap/replay';
import { frameSchedule } from '../../src-main/virtual-lab/replay-serve';
import { encodePacket } from '../../src-main/mocap/packet';
import { expected, fixture, fixtureDir } from './fixtures';
import { pcap, pcapng, type Datagram } from './pcap-writer';
import { richFrame } from './samples';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-capture-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const t0 = 1_700_000_000.25;
const stream: Datagram[] = [
  { time: t0, srcPort: 1510, dstPort: 50000, payload: fixture('serverinfo_packet_v3.bin') },
  { time: t0 + 0.001, srcPort: 1510, dstPort: 50000, payload: fixture('modeldef_packet_v3.bin') },
  { time: t0 + 0.002, srcPort: 1511, dstPort: 1511, payload: fixture('mocapframe_packet_v3.bin') },
  { time: t0 + 0.01, srcPort: 5353, dstPort: 5353, payload: Uint8Array.from([1, 2, 3]) },
  { time: t0 + 0.0103, srcPort: 1511, dstPort: 1511, payload: fixture('mocapframe_packet_occluded_v3.bin') },
];

function decodeAll(file: string): { frames: ReplayFrame[]; decoder: CaptureDecoder } {
  const { packets } = loadCapture(file);
  const decoder = new CaptureDecoder();
  const frames = packets.map((p) => decoder.push(p)).filter((f): f is ReplayFrame => f !== undefined);
  return { frames, decoder };
}

describe('captures', () => {
  it.each([
    ['pcap', () => pcap(stream)],
    ['pcap, fragmented at a 200-byte MTU', () => pcap(stream, 200)],
    ['pcapng little-endian', () => pcapng(stream, true)],
    ['pcapng big-endian, fragmented', () => pcapng(stream, false, 128)],
  ])('%s: decodes frames with names from the model definitions', (name, build) => {
    const file = path.join(tmp, `${name.replace(/\W+/g, '_')}.cap`);
    writeFileSync(file, build());
    const { frames, decoder } = decodeAll(file);
    expect(decoder.counts.decodeErrors).toBe(0);
    expect(decoder.version).toEqual([3, 0, 0, 0]);
    expect(frames.map((f) => f.frame.frameNumber)).toEqual([162734, 269007]);
    expect(frames[0]!.captureTime).toBeCloseTo(t0 + 0.002, 5);
    const json = replayJson(frames[0]!);
    const e = expected.files['mocapframe_packet_v3.bin'];
    expect(json).toEqual({
      frame: e.frame_number,
      timestamp: e.timestamp_seconds_exact,
      rigidBodies: [
        {
          id: 2,
          name: 'RaceQuad',
          position: e.rigid_bodies[0].position_exact,
          orientation: e.rigid_bodies[0].orientation_xyzw_exact,
          meanError: e.rigid_bodies[0].mean_error_exact,
          trackingValid: true,
        },
      ],
    });
    expect(replayJson(frames[1]!).rigidBodies[0]!.name).toBeNull();
    expect(replayLine(frames[0]!)).toMatch(
      /^frame 162734 {2}t=1356\.1167 s {2}RaceQuad \(174\.4, 1447\.1, -734\.3\) mm$/,
    );
  });

  it('rejects a file that is not a capture', () => {
    expect(() =>
      readCapture(
        Uint8Array.from([
          1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        ]),
      ),
    ).toThrow(CaptureFormatError);
  });

  it('a truncated capture keeps the complete records and counts the rest', () => {
    const bytes = pcap(stream);
    const { records, skipped } = readCapture(bytes.subarray(0, bytes.length - 10));
    expect(records.length).toBe(stream.length - 1);
    expect(skipped).toBe(1);
  });

  it('a folder of packet files replays in file-name order, learning the version by trying layouts', () => {
    const dir = path.join(tmp, 'packets');
    mkdirSync(dir);
    copyFileSync(path.join(fixtureDir, 'modeldef_packet_v3.bin'), path.join(dir, '1-modeldef.bin'));
    copyFileSync(path.join(fixtureDir, 'mocapframe_packet_v3.bin'), path.join(dir, '2-frame.bin'));
    copyFileSync(path.join(fixtureDir, 'mocapframe_packet_occluded_v3.bin'), path.join(dir, '10-frame.bin'));
    writeFileSync(path.join(dir, '11-garbage.bin'), Uint8Array.from([7, 0, 3, 0, 1, 2, 3]));
    const { frames, decoder } = decodeAll(dir);
    expect(frames.map((f) => f.frame.frameNumber)).toEqual([162734, 269007]);
    expect(frames[0]!.names.get(2)).toBe('RaceQuad');
    expect(decoder.counts.decodeErrors).toBe(1);
    // Timing for --serve comes from the frame timestamps; the long gap between sessions is capped.
    const { frames: timed } = frameSchedule(loadCapture(dir).packets);
    expect(timed.map((f) => f.at)).toEqual([0, 1]);
  });

  it('detects the 4.1 layout in a capture without SERVERINFO', () => {
    const file = path.join(tmp, 'v41.pcap');
    const frame = encodePacket({ kind: 'frame', ...richFrame(true) }, [4, 1, 0, 0]);
    writeFileSync(file, pcap([{ time: t0, srcPort: 1511, dstPort: 1511, payload: frame }]));
    const { frames, decoder } = decodeAll(file);
    expect(decoder.version).toEqual([4, 1, 0, 0]);
    expect(frames[0]!.frame.assets).toHaveLength(1);
  });
});
