/**
 * docs/safety.md's dry-run soak table, from the soak's committed records
 * (`npm run bench -- dry-run-soak`, bench/results/dry-run-soak*.json): per record, the machine's
 * load, how many runs stopped or were refused for the simulator's sake, and the longest gaps.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readStoredJson } from '../common/stored-json';

const soakRecordSchema = z.object({
  command: z.string(),
  verdict: z.string(),
  summary: z.object({
    runs: z.string(),
    hogs: z.number(),
    'stops for stale motion capture, robot state or a stopped program': z.number(),
    'longest frame gap ms': z.string(),
    'longest state gap ms': z.string(),
  }),
  rows: z.array(z.object({ load: z.number() })).min(1),
});

/** The soak table as Markdown: one row per committed record, the passing one first. */
export function soakTable(root: string): string {
  const dir = path.join(root, 'bench/results');
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /^dry-run-soak.*\.json$/.test(f))
        .sort()
    : [];
  if (files.length === 0) return 'No soak has been recorded (`npm run bench -- dry-run-soak`).';
  const rows = files.map((f) => {
    const r = readStoredJson(path.join(dir, f), soakRecordSchema, { what: 'dry-run soak record' });
    const loads = r.rows.map((row) => row.load);
    const stops = r.summary['stops for stale motion capture, robot state or a stopped program'];
    return {
      stops,
      line: `| \`bench/results/${f}\` | ${r.summary.hogs} | ${Math.min(...loads)} to ${Math.max(...loads)} | ${stops} of ${r.summary.runs.split(' ')[0]}: ${stops === 0 ? '**PASS**' : 'FAIL'} | ${r.summary['longest frame gap ms']} ms | ${r.summary['longest state gap ms']} ms | \`${r.command}\` |`,
    };
  });
  rows.sort((a, b) => a.stops - b.stops);
  return [
    '| record | CPU-bound processes | load average at each run end | runs stopped or refused for the simulator’s sake | longest frame gap | longest robot-state gap | command |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => r.line),
  ].join('\n');
}
