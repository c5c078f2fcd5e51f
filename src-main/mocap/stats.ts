/**
 * Stream health of a NatNet source: frame rate, dropped frames (gaps in frame numbers), system
 * latency (Motive's own mid-exposure -> transmit time) and, once the clock is synced, the full
 * latency from mid-exposure to arrival here; plus counts of packets that failed to decode and of
 * packets from other senders, which are dropped unread.
 */

export interface MocapStats {
  frames: number;
  /** Frames per second over the recent window. */
  frameRate: number;
  droppedFrames: number;
  /** Frames that arrived with a number at or below one already seen (reordered or repeated). */
  outOfOrderFrames: number;
  /** Motive mid-exposure -> transmit (s), latest frame. */
  systemLatency: number | undefined;
  /** Motive mid-exposure -> arrival here (s), latest frame; needs clock sync. */
  totalLatency: number | undefined;
  decodeErrors: number;
  lastDecodeError: string | undefined;
  /** Packets dropped unread because they came from an address other than the server's. */
  foreignPackets: number;
  /** Echo minimum round trip (s). */
  roundTrip: number | undefined;
}

export class StatsTracker {
  private frames = 0;
  private dropped = 0;
  private outOfOrder = 0;
  private lastFrameNumber: number | undefined;
  private readonly arrivals: number[] = [];
  private systemLatency: number | undefined;
  private totalLatency: number | undefined;
  private decodeErrors = 0;
  private lastDecodeError: string | undefined;
  private foreignPackets = 0;

  constructor(private readonly rateWindow = 120) {}

  frame(
    frameNumber: number,
    arrivedAt: number,
    systemLatency: number | undefined,
    totalLatency: number | undefined,
  ): void {
    this.frames++;
    if (this.lastFrameNumber !== undefined) {
      const gap = frameNumber - this.lastFrameNumber;
      if (gap > 1) this.dropped += gap - 1;
      else if (gap < 1) this.outOfOrder++;
    }
    if (this.lastFrameNumber === undefined || frameNumber > this.lastFrameNumber)
      this.lastFrameNumber = frameNumber;
    this.arrivals.push(arrivedAt);
    if (this.arrivals.length > this.rateWindow) this.arrivals.shift();
    this.systemLatency = systemLatency;
    this.totalLatency = totalLatency;
  }

  decodeError(message: string): void {
    this.decodeErrors++;
    this.lastDecodeError = message;
  }

  foreignPacket(): void {
    this.foreignPackets++;
  }

  /** Forget frame numbering (the server restarted or changed). */
  resetSequence(): void {
    this.lastFrameNumber = undefined;
    this.arrivals.length = 0;
  }

  snapshot(roundTrip: number | undefined): MocapStats {
    const n = this.arrivals.length;
    const span = n > 1 ? this.arrivals[n - 1]! - this.arrivals[0]! : 0;
    return {
      frames: this.frames,
      frameRate: span > 0 ? (n - 1) / span : 0,
      droppedFrames: this.dropped,
      outOfOrderFrames: this.outOfOrder,
      systemLatency: this.systemLatency,
      totalLatency: this.totalLatency,
      decodeErrors: this.decodeErrors,
      lastDecodeError: this.lastDecodeError,
      foreignPackets: this.foreignPackets,
      roundTrip,
    };
  }
}
