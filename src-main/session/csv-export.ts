/**
 * `log export`: one CSV file per channel, one row per message, one column per leaf field with
 * flattened names (tcpPose[0], event.status.phase, log_time_ns first). Columns are the union over
 * all messages of the channel, so the log is read twice: once for the columns, once for rows.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Topic } from './channels';
import { SessionLog } from './reader';

/** Leaf values of a JSON value by flattened path. */
export function flatten(
  value: unknown,
  prefix = '',
  out: Map<string, string | number | boolean | null> = new Map(),
) {
  if (Array.isArray(value)) {
    if (value.length === 0 && prefix) out.set(prefix, '');
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, value as string | number | boolean | null);
  }
  return out;
}

export function csvCell(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV file name of a topic: /robot/state -> robot_state.csv. */
export function csvFileName(topic: string): string {
  return `${topic.slice(1).replace(/[/-]/g, '_')}.csv`;
}

export interface ExportedChannel {
  topic: string;
  file: string;
  rows: number;
  columns: number;
}

export async function exportCsv(logFile: string, outDir: string): Promise<ExportedChannel[]> {
  mkdirSync(outDir, { recursive: true });
  const log = await SessionLog.open(logFile);
  try {
    const columns = new Map<Topic, Set<string>>();
    for await (const m of log.messages()) {
      let set = columns.get(m.topic);
      if (!set) columns.set(m.topic, (set = new Set()));
      for (const key of flatten(m.message).keys()) set.add(key);
    }
    const outputs = new Map<
      Topic,
      { stream: ReturnType<typeof createWriteStream>; cols: string[]; rows: number }
    >();
    for (const [topic, set] of columns) {
      const stream = createWriteStream(path.join(outDir, csvFileName(topic)));
      const cols = [...set];
      stream.write(`${['log_time_ns', ...cols].map(csvCell).join(',')}\n`);
      outputs.set(topic, { stream, cols, rows: 0 });
    }
    for await (const m of log.messages()) {
      const o = outputs.get(m.topic)!;
      const flat = flatten(m.message);
      const ok = o.stream.write(
        `${[m.logTime.toString(), ...o.cols.map((c) => csvCell(flat.get(c)))].join(',')}\n`,
      );
      o.rows++;
      if (!ok) await new Promise<void>((r) => o.stream.once('drain', () => r()));
    }
    const result: ExportedChannel[] = [];
    for (const [topic, o] of outputs) {
      o.stream.end();
      await finished(o.stream);
      result.push({
        topic,
        file: path.join(outDir, csvFileName(topic)),
        rows: o.rows,
        columns: o.cols.length + 1,
      });
    }
    return result.sort((a, b) => a.topic.localeCompare(b.topic));
  } finally {
    await log.close();
  }
}
