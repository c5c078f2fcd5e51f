/** Shared output for benchmarks: a plain-text table on stdout and a JSON file under bench/results. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { z } from 'zod';
import { readStoredJson } from '../src-main/common/stored-json';
import { currentCommit, ProvenanceError } from '../src-main/experiments/provenance';

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

/**
 * The 1-minute load average when the benchmark started: wall times taken while other programs
 * held the cores are not this machine's figure, and the load says so as data beside them.
 */
const loadAtStart = os.loadavg()[0]!;

/** The checkout's commit (marked -dirty with local changes), or none outside a git checkout. */
function benchCommit(): Record<string, string> {
  try {
    return { commit: currentCommit() };
  } catch (e) {
    if (e instanceof ProvenanceError) return {};
    throw e;
  }
}

/** The machine a benchmark ran on and the commit whose code ran, recorded beside every result. */
export function machineInfo(): Record<string, string | number> {
  return {
    ...benchCommit(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAtStart: Number(loadAtStart.toFixed(2)),
  };
}

/** Results go to bench/results, or to PARAPUSH_BENCH_OUT (tests run benchmarks without touching the committed results). */
export const benchResultsDir = (): string => path.resolve(process.env.PARAPUSH_BENCH_OUT ?? 'bench/results');

export function writeResult(name: string, data: unknown): string {
  const dir = benchResultsDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: machineInfo(), ...(data as object) }, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  return file;
}

/**
 * The parts of an earlier `NAME.json` that this run did not redo, each stamped with the machine
 * and date it was measured on (a part's own stamp wins): running one part of a bench must not
 * drop the others.
 */
export function earlierParts(name: string, fresh: Record<string, unknown>): Record<string, unknown> {
  const file = path.join(benchResultsDir(), `${name}.json`);
  if (!existsSync(file)) return {};
  const { machine, ...parts } = readStoredJson(file, z.record(z.string(), z.unknown()), {
    what: 'bench results',
  });
  const kept: Record<string, unknown> = {};
  for (const [part, value] of Object.entries(parts)) {
    // Parts are objects; top-level fields (which backend, which model) belong to this run.
    if (!(part in fresh) && typeof value === 'object' && value !== null && !Array.isArray(value))
      kept[part] = { machine, ...value };
  }
  return kept;
}

/** Benchmarks report intervals the way experiments do. */
export { meanCi95 } from '../src-main/experiments/stats';
