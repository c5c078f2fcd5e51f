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

/** Mean and half-width of the 95% confidence interval (normal approximation; t for small n). */
export function meanCi95(xs: number[]): { mean: number; ci95: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, ci95: 0 };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, ci95: tQuantile975(n - 1) * Math.sqrt(variance / n) };
}

/** Two-sided 95% Student-t quantile; exact table for small dof, normal beyond. */
function tQuantile975(dof: number): number {
  const table = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
    2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
  ];
  return dof <= table.length ? table[dof - 1]! : 1.96 + 2.4 / dof;
}
