/**
 * Server-to-local clock offset by Cristian's algorithm: every echo round trip gives the server
 * clock at (about) the midpoint of the trip; the trip with the smallest round-trip time bounds the
 * error best, so the offset comes from the minimum-RTT sample of a sliding window (the window lets
 * the estimate follow clock drift).
 */

export interface EchoSample {
  /** Local monotonic time (s) the request was sent and the response arrived. */
  sentAt: number;
  receivedAt: number;
  /** Server clock (s) when it answered. */
  serverTime: number;
}

export class ClockSync {
  private readonly samples: EchoSample[] = [];

  constructor(private readonly window = 32) {}

  add(sample: EchoSample): void {
    if (!(sample.receivedAt >= sample.sentAt)) return;
    this.samples.push(sample);
    if (this.samples.length > this.window) this.samples.shift();
  }

  get sampleCount(): number {
    return this.samples.length;
  }

  private best(): EchoSample | undefined {
    let best: EchoSample | undefined;
    for (const s of this.samples)
      if (!best || s.receivedAt - s.sentAt < best.receivedAt - best.sentAt) best = s;
    return best;
  }

  /** Minimum round-trip time (s) in the window; undefined before the first echo. */
  get minRoundTrip(): number | undefined {
    const b = this.best();
    return b ? b.receivedAt - b.sentAt : undefined;
  }

  /** local = server + offset (s); undefined before the first echo. */
  get offset(): number | undefined {
    const b = this.best();
    return b ? (b.sentAt + b.receivedAt) / 2 - b.serverTime : undefined;
  }

  /** A server time (s) on the local monotonic clock. */
  toLocal(serverTime: number): number | undefined {
    const o = this.offset;
    return o === undefined ? undefined : serverTime + o;
  }
}
