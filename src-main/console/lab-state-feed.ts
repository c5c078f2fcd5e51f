/**
 * The table view between runs: the lab's measured table (lab-link/table-now.ts) sent as
 * `lab-state` events a few times a second, so the view follows the arm and the objects while the
 * operator jogs the arm or moves things by hand, instead of showing where the last run left them.
 * Quiet while a run reports its own states and while a recording plays back (the view shows the
 * recording then); silent while the lab cannot place every body (no guess is ever drawn), and
 * nothing is sent while the table stands still.
 */
import type { ConsoleEvent } from '#contract/console-api';

/** The table now: the state vector in the scene's layout, or null when it is not known. */
export type TableReading = () => { sliderIds: string[]; state: number[] } | null;

export interface LabStateFeedOptions {
  read: TableReading;
  /** True while the view must not be fed (a run in progress, a playback open). */
  quiet(): boolean;
  publish(event: Extract<ConsoleEvent, { type: 'lab-state' }>): void;
  /** Readings per second (default 15: a 20 mm/s jog moves under 1.5 mm between two). */
  rateHz?: number;
}

/** A change smaller than this (m, rad) is measurement noise: not sent again. */
const STILL = 1e-4;
/** The same reading is sent again after this long (s), for a view that opened meanwhile. */
const REFRESH_PERIOD = 1;

export class LabStateFeed {
  private readonly timer: NodeJS.Timeout;
  private last: { state: number[]; ticks: number } | null = null;
  private readonly refreshTicks: number;

  constructor(private readonly o: LabStateFeedOptions) {
    const rate = o.rateHz ?? 15;
    this.refreshTicks = Math.max(1, Math.round(rate * REFRESH_PERIOD));
    this.timer = setInterval(() => this.tick(), 1000 / rate);
    this.timer.unref();
  }

  /** One reading: sent when the table moved (or a second has passed), not while quiet. */
  tick(): void {
    if (this.o.quiet()) {
      this.last = null;
      return;
    }
    const now = this.o.read();
    if (!now) return;
    const last = this.last;
    const moved =
      !last ||
      last.state.length !== now.state.length ||
      now.state.some((v, i) => Math.abs(v - last.state[i]!) > STILL) ||
      last.ticks >= this.refreshTicks;
    if (!moved) {
      last.ticks++;
      return;
    }
    this.last = { state: now.state, ticks: 0 };
    this.o.publish({ type: 'lab-state', sliderIds: now.sliderIds, state: now.state });
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
