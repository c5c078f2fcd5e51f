/** Shared output for benchmarks: a plain-text table on stdout and a JSON file under bench/results. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';

export type Row = Record<string, string | number>;

export function formatTable(title: string, rows: Row[]): string {
  if (rows.length === 0) return `${title}\n(no rows)\n`;
  const cols = Object.keys(rows[0]!);
  const cell = (v: string | number | undefined): string =>
    typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : (v ?? '');
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]): string => `| ${vals.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    title,
    line(cols),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map((r) => line(cols.map((c) => cell(r[c])))),
    '',
  ].join('\n');
}

export function printTable(title: string, rows: Row[]): void {
  process.stdout.write(`${formatTable(title, rows)}\n`);
}

/** The machine a benchmark ran on, recorded beside every result. */
export function machineInfo(): Record<string, string | number> {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    date: new Date().toISOString(),
  };
}

/** Results go to bench/results, or to PARAPUSH_BENCH_OUT (tests run benchmarks without touching the committed results). */
export function writeResult(name: string, data: unknown): string {
  const dir = path.resolve(process.env.PARAPUSH_BENCH_OUT ?? 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: machineInfo(), ...(data as object) }, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  return file;
}

/** Benchmarks report intervals the way experiments do. */
export { meanCi95 } from '../src-main/experiments/stats';
