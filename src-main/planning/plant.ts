/**
 * What the MPC loop drives: something it can observe and send one control to. The simulated
 * execution world implements it here; the real robot (behind the safety supervisor) implements
 * the same interface, so one loop serves both.
 */
import type { State } from '#contract/state';
import { type Control } from '#contract/state';

export interface Plant {
  /** The current measured state (state layout of the scene). */
  observe(): State;
  /**
   * Holds pusher velocity u for dt seconds; resolves once it has been applied, with the states the
   * table passed through meanwhile (sampled, in order). Obstacles are regions, not bodies: an
   * object can cross the edge of one and leave it again within a control, so the failure test
   * must see the path, not only where it ends.
   */
  execute(u: Control, dt: number): Promise<State[]>;
}
