/**
 * The world's recent states by time, for a motion-capture pipeline that shows the table as it was
 * a while ago: the state at any recent time, interpolated between the two nearest kept states.
 */
import { wrapAngle, type State } from '#contract/state';

export class StateHistory {
  private readonly times: number[] = [];
  private readonly states: State[] = [];

  /**
   * @param span s kept behind the newest state.
   * @param angles indices of the state's angles, interpolated the short way round.
   */
  constructor(
    private readonly span: number,
    private readonly angles: ReadonlySet<number>,
  ) {}

  /** Adds the state at time t (s, non-decreasing). */
  push(t: number, x: State): void {
    this.times.push(t);
    this.states.push(x.slice());
    while (this.times.length > 2 && this.times[1]! < t - this.span) {
      this.times.shift();
      this.states.shift();
    }
  }

  /** Forgets every state but x at t: the table was rearranged (the cameras see only the new one). */
  reset(t: number, x: State): void {
    this.times.length = 0;
    this.states.length = 0;
    this.push(t, x);
  }

  /** The state at time t: the oldest kept before the first, the newest after the last, else interpolated. */
  at(t: number): State | undefined {
    const n = this.times.length;
    if (n === 0) return undefined;
    if (t <= this.times[0]!) return this.states[0]!.slice();
    if (t >= this.times[n - 1]!) return this.states[n - 1]!.slice();
    let i = n - 1;
    while (this.times[i - 1]! > t) i--;
    const t0 = this.times[i - 1]!;
    const t1 = this.times[i]!;
    const w = t1 > t0 ? (t - t0) / (t1 - t0) : 1;
    const a = this.states[i - 1]!;
    const b = this.states[i]!;
    return a.map((v, k) =>
      this.angles.has(k) ? wrapAngle(v + w * wrapAngle(b[k]! - v)) : v + w * (b[k]! - v),
    );
  }
}
