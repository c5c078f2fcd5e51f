import { monotonicSeconds } from '../common/clock';

/**
 * A one-line progress bar on stderr. On a terminal it redraws in place; into a file or a
 * scheduler's log it prints one line per finished item instead, so logs stay readable.
 */
export class ProgressBar {
  private done = 0;
  private readonly started = monotonicSeconds();

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly width = 30,
  ) {}

  /** Marks one more item done, with a short note (e.g. "parareal:2 scene 7 success"). */
  tick(note: string): void {
    this.done++;
    const frac = this.total ? this.done / this.total : 1;
    const filled = Math.round(frac * this.width);
    const elapsed = monotonicSeconds() - this.started;
    const eta = this.done ? (elapsed / this.done) * (this.total - this.done) : 0;
    const line = `[${'#'.repeat(filled)}${'-'.repeat(this.width - filled)}] ${this.done}/${this.total} ${formatDuration(elapsed)} elapsed, ETA ${formatDuration(eta)}  ${note}`;
    if (this.stream.isTTY) {
      this.stream.write(`\r\x1b[2K${line}`);
      if (this.done === this.total) this.stream.write('\n');
    } else {
      this.stream.write(`${line}\n`);
    }
  }
}

export function formatDuration(s: number): string {
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.round((s % 3600) / 60)).padStart(2, '0')}m`;
}
