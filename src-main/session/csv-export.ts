/**
 * `log export`: a tidy table per channel, one row per message, one named column per field
 * (`robot_state.csv` has tcpPose.x ... tcpPose.rz; `scene_state.csv` has pusher.x and box.theta).
 * Nothing is a column per array index: bodies and sliders become columns named by their id, and
 * what a message holds a list of gets a table of its own with one row per item, keyed by the
 * message it belongs to (planner_step_predictions.csv: one row per step, Parareal iteration and
 * control boundary, with the predicted state in named columns). Every table starts with
 * log_time_ns. SI units, as in the log. The Foxglove channels are views of the same data and are
 * not exported.
 *
 * Columns are the union over all rows of a table, so the log is read twice: once for the
 * columns, once for the rows.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { isFoxgloveTopic, type MessageOf, type Topic } from './channels';
import type { NamedState } from './named-state';
import { SessionLog } from './reader';

type Cell = string | number | boolean | null;
type Row = Map<string, Cell>;

/**
 * Leaf values of a JSON value by dotted name. Arrays of numbers, strings or booleans become one
 * cell ("a; b"); other arrays (none is left by the channel tables below) one JSON cell.
 */
export function flatten(value: unknown, prefix = '', out: Row = new Map()): Row {
  if (Array.isArray(value)) {
    const simple = value.every((v) => v === null || typeof v !== 'object');
    out.set(prefix, simple ? value.join('; ') : JSON.stringify(value));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, value as Cell);
  }
  return out;
}

/** Text a spreadsheet would read as a formula (OWASP "CSV injection"): = + - @ tab CR first. */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * A number, or a list of numbers ("-0.5; 0.2" from an array): signs, digits, points, exponents
 * and separators only, nothing a formula could call, so it stays as it is.
 */
const NUMERIC = /^[-+]?\.?[0-9][0-9.eE+\-; ]*$/;

/**
 * One CSV cell. Numbers are written as numbers (-0.5 stays -0.5); text that starts like a formula
 * gets a leading ' so a spreadsheet shows it as text instead of evaluating it: a scene name, an
 * operator's note or a device's error text in a log is not trusted to be harmless.
 */
export function csvCell(v: Cell | undefined): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' && FORMULA_START.test(v) && !NUMERIC.test(v) ? `'${v}` : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV file name of a topic: /robot/state -> robot_state.csv (a part table: robot_state_part.csv). */
export function csvFileName(topic: string, part?: string): string {
  return `${topic.slice(1).replace(/[/-]/g, '_')}${part ? `_${part}` : ''}.csv`;
}

/** A state's fields by name: pusher.x ... and, per slider, <id>.x, <id>.theta, ... */
function stateColumns(s: NamedState): Record<string, unknown> {
  return {
    ...(s.gripper ? { gripper: s.gripper } : { pusher: s.pusher }),
    ...Object.fromEntries(s.sliders.map(({ id, ...rest }) => [id, rest])),
  };
}

interface TableRow {
  /** Part of the channel's table set ("" for its main table). */
  part: string;
  row: Row;
}

/** The rows a message adds to its channel's tables. */
function rowsOf(topic: Topic, message: unknown): TableRow[] {
  const main = (value: unknown): TableRow => ({ part: '', row: flatten(value) });
  switch (topic) {
    case '/session/settings': {
      const { scene, ...rest } = message as MessageOf<'/session/settings'>;
      return [main({ ...rest, scene: scene.name, scene_json: JSON.stringify(scene) })];
    }
    case '/mocap/frame': {
      const { rigidBodies, ...rest } = message as MessageOf<'/mocap/frame'>;
      const bodies = Object.fromEntries(rigidBodies.map((b) => [b.name ?? `body-${b.id}`, b]));
      return [main({ ...rest, bodies: rigidBodies.length, ...bodies })];
    }
    case '/mocap/poses': {
      const { pusher, sliders, ...rest } = message as MessageOf<'/mocap/poses'>;
      // A body never seen has no pose: blank cells under the same columns.
      const estimate = <T extends { pose: object | null }>(b: T) => ({
        ...b,
        pose: b.pose ?? { x: null, y: null, theta: null },
      });
      const bodies = Object.fromEntries(sliders.map(({ id, ...s }) => [id, estimate(s)]));
      return [main({ ...rest, pusher: estimate(pusher), ...bodies })];
    }
    case '/scene/state': {
      const { pusher, sliders, ...rest } = message as MessageOf<'/scene/state'>;
      return [main({ ...rest, ...stateColumns({ pusher, sliders }) })];
    }
    case '/supervisor/event':
    case '/console/log': {
      const { event, ...stamps } = message as MessageOf<'/console/log' | '/supervisor/event'>;
      const { type: _type, ...fields } = event;
      return [main({ ...stamps, ...fields })];
    }
    case '/run/status': {
      const { event, ...stamps } = message as MessageOf<'/run/status'>;
      return [main({ ...stamps, ...event.status })];
    }
    case '/planner/step':
      return plannerStepRows(message as MessageOf<'/planner/step'>);
    case '/planner/prediction-error': {
      // One column pair per object: <id>.position, <id>.yaw.
      const { objects, ...rest } = message as MessageOf<'/planner/prediction-error'>;
      return [main({ ...rest, ...Object.fromEntries(objects.map(({ id, ...e }) => [id, e])) })];
    }
    default:
      return [main(message)];
  }
}

/**
 * A planner step: one row in planner_step.csv (start state, first control, final cost and
 * convergence, timings), and its lists in planner_step_plan, _predictions, _costs, _convergence
 * and _rollouts, each row keyed by the step.
 */
function plannerStepRows(m: MessageOf<'/planner/step'>): TableRow[] {
  const { mono, wall, step, time, start, plan, controlDuration, predictions, convergence, costs } = m;
  const last = convergence.at(-1);
  const rows: TableRow[] = [
    {
      part: '',
      row: flatten({
        mono,
        wall,
        step,
        time,
        start: stateColumns(start),
        u: plan[0],
        controlDuration,
        horizon: plan.length,
        iterations: predictions.length,
        optimizerIterations: costs.length,
        cost: costs.at(-1) ?? null,
        convergence: { translation: last?.translation ?? null, rotation: last?.rotation ?? null },
        ...(m.replan ? { replan: m.replan } : {}),
        ...(m.beforeArming !== undefined ? { beforeArming: m.beforeArming } : {}),
        timings: m.timings,
      }),
    },
  ];
  const part = (name: string, value: Record<string, unknown>): TableRow => ({
    part: name,
    row: flatten({ step, ...value }),
  });
  plan.forEach((u, k) => rows.push(part('plan', { k, t: k * controlDuration, ...u })));
  for (const p of predictions)
    p.states.forEach((s, k) =>
      rows.push(part('predictions', { iteration: p.iteration, k, ...stateColumns(s) })),
    );
  costs.forEach((cost, iteration) => rows.push(part('costs', { iteration, cost })));
  for (const c of convergence) rows.push(part('convergence', { ...c }));
  m.rollouts?.forEach((r, rollout) =>
    r.states.forEach((s, k) => rows.push(part('rollouts', { rollout, k, ...stateColumns(s) }))),
  );
  return rows;
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
    const columns = new Map<string, { topic: Topic; set: Set<string> }>();
    for await (const m of log.messages()) {
      if (isFoxgloveTopic(m.topic)) continue;
      for (const { part, row } of rowsOf(m.topic, m.message)) {
        const file = csvFileName(m.topic, part);
        let table = columns.get(file);
        if (!table) columns.set(file, (table = { topic: m.topic, set: new Set() }));
        for (const key of row.keys()) table.set.add(key);
      }
    }
    const outputs = new Map<
      string,
      { topic: Topic; stream: ReturnType<typeof createWriteStream>; cols: string[]; rows: number }
    >();
    for (const [file, { topic, set }] of columns) {
      const stream = createWriteStream(path.join(outDir, file));
      const cols = [...set];
      stream.write(`${['log_time_ns', ...cols].map(csvCell).join(',')}\n`);
      outputs.set(file, { topic, stream, cols, rows: 0 });
    }
    for await (const m of log.messages()) {
      if (isFoxgloveTopic(m.topic)) continue;
      for (const { part, row } of rowsOf(m.topic, m.message)) {
        const o = outputs.get(csvFileName(m.topic, part))!;
        const ok = o.stream.write(
          `${[m.logTime.toString(), ...o.cols.map((c) => csvCell(row.get(c)))].join(',')}\n`,
        );
        o.rows++;
        if (!ok) await new Promise<void>((r) => o.stream.once('drain', () => r()));
      }
    }
    const result: ExportedChannel[] = [];
    for (const [file, o] of outputs) {
      o.stream.end();
      await finished(o.stream);
      result.push({
        topic: o.topic,
        file: path.join(outDir, file),
        rows: o.rows,
        columns: o.cols.length + 1,
      });
    }
    return result.sort((a, b) => a.file.localeCompare(b.file));
  } finally {
    await log.close();
  }
}
