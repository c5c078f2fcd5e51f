/**
 * The one progress bar of the command line: a line on stderr, redrawn in place on a terminal;
 * into a file or a scheduler's log, a line per tenth of the work, or per item where each item is
 * long enough to report (an experiment's runs: `itemBar`).
 */
import { monotonicSeconds } from './clock';

/** A one-line progress bar on stderr (redrawn in place on a terminal, a line per 10% otherwise). */
export interface ProgressBar {
  update(done: number, total: number, note?: string): void;
  finish(note?: string): void;
  /** A line of its own above the bar (an event the operator should see), the bar redrawn below it. */
  log(line: string): void;
}

export function progressBar(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
  /** Where not on a terminal: a line per tenth of the work, or per update. */
  lines: 'decile' | 'update' = 'decile',
): ProgressBar {
  const t0 = monotonicSeconds();
  let lastDecile = -1;
  let lastLine = '';
  const render = (done: number, total: number, note = ''): string => {
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const width = 24;
    const filled = Math.round(frac * width);
    const elapsed = monotonicSeconds() - t0;
    const eta = frac > 0 ? (elapsed / frac) * (1 - frac) : 0;
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${formatDuration(elapsed)} elapsed, ~${formatDuration(eta)} left${note ? ` ${note}` : ''}`;
  };
  return {
    update(done, total, note) {
      lastLine = render(done, total, note);
      if (stream.isTTY) stream.write(`\r${lastLine}\x1b[K`);
      else if (lines === 'update') stream.write(`${lastLine}\n`);
      else {
        const decile = Math.floor((10 * done) / Math.max(total, 1));
        if (decile !== lastDecile) {
          lastDecile = decile;
          stream.write(`${lastLine}\n`);
        }
      }
    },
    finish(note) {
      if (stream.isTTY) stream.write(`\r${lastLine}${note ? ` ${note}` : ''}\x1b[K\n`);
      else if (note) stream.write(`${label}: ${note}\n`);
    },
    log(line) {
      if (stream.isTTY) stream.write(`\r${line}\x1b[K\n${lastLine}`);
      else stream.write(`${line}\n`);
    },
  };
}

/** A bar of `total` items, one more done at each tick, with a line per item off a terminal. */
export function itemBar(
  label: string,
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
): { tick(note: string): void } {
  const bar = progressBar(label, stream, 'update');
  let done = 0;
  return {
    tick(note) {
      bar.update(++done, total, note);
      if (done === total) bar.finish();
    },
  };
}

/** "42s", "3m05s", "2h07m". */
export function formatDuration(s: number): string {
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.round((s % 3600) / 60)).padStart(2, '0')}m`;
}
