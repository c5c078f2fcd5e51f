/**
 * The virtual Motive's camera clock: frame k is exposed at start + k periods, whatever the thread
 * that sends the frames does. Motive's cameras are hardware-synchronised and its frames are
 * numbered by them: a streaming host that falls behind sends the frames late, it does not stop
 * taking them. So a stalled event loop here makes a backlog of frames, each with its own camera
 * time, sent as soon as the loop runs again (the client sees them late, and their timestamps say
 * so), never a silent pause with the numbering carried on as if no time had passed. A backlog
 * longer than `maxBacklog` frames (a debugger pause, a machine that held the process off) keeps
 * only its newest frames: the clock jumps over the older ones, which are never taken, so the
 * numbering stays unbroken and the timestamps show the jump.
 */
export interface DueFrames {
  /** Camera times (ns, the schedule's clock) of the frames due, oldest first. */
  slots: bigint[];
  /** Frames older than the backlog allows: the clock jumped over them, they are never taken. */
  skipped: number;
}

export class FrameSchedule {
  /** Index of the next frame the cameras take. */
  private next = 0n;

  constructor(
    private readonly startNs: bigint,
    readonly periodNs: bigint,
    private readonly maxBacklog: number,
  ) {
    if (periodNs <= 0n) throw new RangeError('the frame period must be positive');
    if (!(maxBacklog >= 1)) throw new RangeError('the backlog must hold at least one frame');
  }

  /** The frames due by `nowNs` that were not handed out before. */
  due(nowNs: bigint): DueFrames {
    if (nowNs < this.startNs) return { slots: [], skipped: 0 };
    const last = (nowNs - this.startNs) / this.periodNs;
    const count = last - this.next + 1n;
    const skipped = count > BigInt(this.maxBacklog) ? count - BigInt(this.maxBacklog) : 0n;
    this.next += skipped;
    const slots: bigint[] = [];
    for (; this.next <= last; this.next++) slots.push(this.startNs + this.next * this.periodNs);
    return { slots, skipped: Number(skipped) };
  }

  /** Time until the next frame is due (ms, 0 if it is due already). */
  msUntilNext(nowNs: bigint): number {
    const at = this.startNs + this.next * this.periodNs;
    return at > nowNs ? Number(at - nowNs) / 1e6 : 0;
  }
}
