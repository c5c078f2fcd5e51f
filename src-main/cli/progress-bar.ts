import { monotonicSeconds } from '../common/clock';

/** A one-line progress bar on stderr (redrawn in place on a terminal, a line per 10% otherwise). */
export interface ProgressBar {
  update(done: number, total: number, note?: string): void;
  finish(note?: string): void;
  /** A line of its own above the bar (an event the operator should see), the bar redrawn below it. */
  log(line: string): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const t0 = monotonicSeconds();
  let lastDecile = -1;
  let lastLine = '';
  const render = (done: number, total: number, note = ''): string => {
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const width = 24;
    const filled = Math.round(frac * width);
    const elapsed = monotonicSeconds() - t0;
    const eta = frac > 0 ? (elapsed / frac) * (1 - frac) : 0;
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${elapsed.toFixed(0)} s elapsed, ~${eta.toFixed(0)} s left${note ? ` ${note}` : ''}`;
  };
  return {
    update(done, total, note) {
      lastLine = render(done, total, note);
      if (stream.isTTY) stream.write(`\r${lastLine}\x1b[K`);
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
