/**
 * The console's motion-capture health line: the old frames the client dropped unread (replayed or
 * reordered) and Motive restarts are shown beside the rate and the frames missing.
 */
import { describe, expect, it } from 'vitest';
import { optitrackDetail } from '../../src-main/lab-link/lab-status';
import type { MocapStats } from '../../src-main/mocap/stats';

const healthy: MocapStats = {
  frames: 1200,
  frameRate: 120,
  droppedFrames: 0,
  olderFrames: 0,
  unconfirmedFrames: 0,
  repeatedFrames: 0,
  restarts: 0,
  systemLatency: 0.004,
  totalLatency: 0.005,
  decodeErrors: 0,
  lastDecodeError: undefined,
  foreignPackets: 0,
  spoofSigns: 0,
  lastSpoofSign: undefined,
  roundTrip: 0.0002,
};

describe('the OptiTrack connection detail', () => {
  it('says only the rate and the frames missing while the stream is in order', () => {
    expect(optitrackDetail(healthy, true)).toBe('120.0 frames/s, 0 dropped');
    expect(optitrackDetail({ ...healthy, frames: 0 }, true)).toBe('waiting for the first frame');
  });

  it('counts out-of-order frames and restarts when there are any', () => {
    const s = { ...healthy, droppedFrames: 31, olderFrames: 58, restarts: 1, decodeErrors: 2 };
    expect(optitrackDetail(s, false)).toBe(
      '120.0 frames/s, 31 dropped, frames stopped, 58 out of order, 1 restart(s), 2 bad packet(s)',
    );
  });
});
