import { describe, expect, it } from 'vitest';
import { formatDuration, itemBar, progressBar } from '../../src-main/common/progress-bar';

/** A stderr stand-in that keeps what was written. */
function stream(isTTY: boolean): { out: string[]; s: NodeJS.WriteStream } {
  const out: string[] = [];
  return { out, s: { isTTY, write: (chunk: string) => out.push(chunk) } as unknown as NodeJS.WriteStream };
}

describe('progress bar', () => {
  it('on a terminal, logs a line of its own and draws the bar again below it', () => {
    const { out, s } = stream(true);
    const bar = progressBar('generate', s);
    bar.update(1, 4, 'blocks');
    const last = out.at(-1)!;
    expect(last.startsWith('\r') && last.endsWith('\x1b[K')).toBe(true);
    const drawn = last.slice(1, -'\x1b[K'.length);
    expect(drawn).toMatch(/^generate \[#{6}\.{18}\] 1\/4 .* blocks$/);
    bar.log('generate: worker 7 exited with code null: worker replaced, 3 of its jobs queued again');
    // The bar's line is cleared and overwritten by the message, which ends its line; the bar follows.
    expect(out.at(-1)).toBe(
      `\rgenerate: worker 7 exited with code null: worker replaced, 3 of its jobs queued again\x1b[K\n${drawn}`,
    );
  });

  it('elsewhere, logs the line as it is', () => {
    const { out, s } = stream(false);
    const bar = progressBar('generate', s);
    bar.update(1, 4, 'blocks');
    bar.log('a worker was replaced');
    expect(out.at(-1)).toBe('a worker was replaced\n');
  });

  it('counts items one tick at a time, a line each off a terminal', () => {
    const { out, s } = stream(false);
    const bar = itemBar('runs', 2, s);
    bar.tick('fine scene 1: finished');
    bar.tick('fine scene 2: failed');
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^runs \[#{12}\.{12}\] 1\/2 .* fine scene 1: finished\n$/);
    expect(out[1]).toMatch(/^runs \[#{24}\] 2\/2 .* fine scene 2: failed\n$/);
  });

  it('writes durations in seconds, minutes and hours', () => {
    expect([formatDuration(42), formatDuration(185), formatDuration(7620)]).toEqual([
      '42s',
      '3m05s',
      '2h07m',
    ]);
  });
});
