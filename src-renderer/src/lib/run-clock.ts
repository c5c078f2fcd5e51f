/**
 * A run's time. The console state keeps it (ConsoleState.runClock, ticking while
 * ConsoleState.runActive, which asks the run lifecycle: src-shared/contract/run-lifecycle.ts); the
 * status bar, the Run view and the planner readout only read it. Seconds throughout.
 */

export interface RunClock {
  /** The run is in progress: its time ticks from startedAt. */
  active: boolean;
  /** Wall clock of the start, s since the epoch; null when no run has started. */
  startedAt: number | null;
  /** Run time while no run is in progress, s: frozen where the last run stopped. */
  stopped: number;
}

/** Run time in seconds at wall clock `now` (s since the epoch). */
export function elapsedRunTime(clock: RunClock, now: number): number {
  if (clock.active && clock.startedAt !== null) return Math.max(0, now - clock.startedAt);
  return clock.stopped;
}

/** mm:ss, and h:mm:ss from an hour on. */
export function formatRunTime(seconds: number): string {
  const total = Math.floor(Math.max(0, seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}
