/**
 * Stream health of a NatNet source: frame rate, dropped frames (gaps in frame numbers), frames
 * that came out of order, system latency (Motive's own mid-exposure -> transmit time) and, once
 * the clock is synced, the full latency from mid-exposure to arrival here; plus counts of packets
 * that failed to decode, of packets from other senders, which are dropped unread, and of the signs
 * that a second sender poses as the server (spoof-signs.ts).
 *
 * Order is judged by the same rule (frame-order.ts), on the same frame numbers, contents and
 * arrival times, as the state estimator judges it: the older and unconfirmed frames counted here
 * are the ones it dropped, and its signs of two numberings or duplicated numbers are counted here.
 */
import { frameDelta, FrameOrder } from './frame-order';
import type { SpoofSign } from './spoof-signs';

export interface MocapStats {
  frames: number;
  /** Frames per second over the recent window. */
  frameRate: number;
  /**
   * Gaps in the numbering of the frames taken as new: frames never received, and frames that came
   * too late (also counted in olderFrames).
   */
  droppedFrames: number;
  /** Frames dropped unread as older than the newest (replayed, reordered, an unconfirmed restart). */
  olderFrames: number;
  /** Frames dropped unread as too far ahead of the newest (a numbering jump not confirmed). */
  unconfirmedFrames: number;
  /** Frames that repeated the newest frame's number (a frozen stream). */
  repeatedFrames: number;
  /** New numberings taken: a Motive restart (lower), or a jump after a pause (higher). */
  restarts: number;
  /** Motive mid-exposure -> transmit (s), latest frame. */
  systemLatency: number | undefined;
  /** Motive mid-exposure -> arrival here (s), latest frame; needs clock sync. */
  totalLatency: number | undefined;
  decodeErrors: number;
  lastDecodeError: string | undefined;
  /** Packets dropped unread because they came from an address other than the server's. */
  foreignPackets: number;
  /**
   * Signs that a second sender poses as the server (spoof-signs.ts): packets from its address on
   * another port, messages nobody asked for, two numberings at once, a number with two contents.
   */
  spoofSigns: number;
  /** The latest such sign. */
  lastSpoofSign: SpoofSign | undefined;
  /** Echo minimum round trip (s). */
  roundTrip: number | undefined;
}

export class StatsTracker {
  private frames = 0;
  private dropped = 0;
  private restarts = 0;
  private readonly order = new FrameOrder();
  /** The newest frame's number, once there is one. */
  private newest: number | undefined;
  private readonly arrivals: number[] = [];
  private systemLatency: number | undefined;
  private totalLatency: number | undefined;
  private decodeErrors = 0;
  private lastDecodeError: string | undefined;
  private foreignPackets = 0;
  private clientSigns = 0;
  private lastSign: SpoofSign | undefined;

  constructor(private readonly rateWindow = 120) {}

  frame(
    frameNumber: number,
    arrivedAt: number,
    systemLatency: number | undefined,
    totalLatency: number | undefined,
    content?: string,
  ): void {
    this.frames++;
    const verdict = this.order.judge(frameNumber, arrivedAt, content);
    if (this.order.sign) this.lastSign = { ...this.order.sign, at: arrivedAt };
    if (verdict === 'new' && this.newest !== undefined)
      this.dropped += frameDelta(this.newest, frameNumber) - 1;
    if (verdict === 'restart' || verdict === 'jump') this.restarts++;
    if (verdict === 'new' || verdict === 'restart' || verdict === 'jump') this.newest = frameNumber;
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

  /** A sign the client saw at its sockets (a port, an unsolicited message). */
  spoofSign(sign: SpoofSign): void {
    this.clientSigns++;
    this.lastSign = sign;
  }

  /**
   * Forget the arrival times the rate is measured from (the server changed its stream). The
   * numbering is not forgotten: the estimator does not forget it either, and a lower one is
   * taken as a restart the same way in both.
   */
  resetRate(): void {
    this.arrivals.length = 0;
  }

  snapshot(roundTrip: number | undefined): MocapStats {
    const n = this.arrivals.length;
    const span = n > 1 ? this.arrivals[n - 1]! - this.arrivals[0]! : 0;
    return {
      frames: this.frames,
      frameRate: span > 0 ? (n - 1) / span : 0,
      droppedFrames: this.dropped,
      olderFrames: this.order.dropped,
      unconfirmedFrames: this.order.unconfirmed,
      repeatedFrames: this.order.repeated,
      restarts: this.restarts,
      systemLatency: this.systemLatency,
      totalLatency: this.totalLatency,
      decodeErrors: this.decodeErrors,
      lastDecodeError: this.lastDecodeError,
      foreignPackets: this.foreignPackets,
      spoofSigns: this.clientSigns + this.order.signs,
      lastSpoofSign: this.lastSign,
      roundTrip,
    };
  }
}
