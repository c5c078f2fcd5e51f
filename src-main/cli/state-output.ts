/** Printing state sequences for people (a table in mm/deg) or programs (JSON in SI units). */
import type { State, StateLayout } from '#contract/state';

/** One numeric column; `group` names the body it belongs to (printed once above its columns). */
interface Column {
  group: string;
  name: string;
  cells: string[];
}

export function formatStates(layout: StateLayout, states: State[], json: boolean): string {
  if (json) return `${JSON.stringify({ layout: layout.names, states: states.map((s) => Array.from(s)) })}\n`;
  return formatTable(stateColumns(layout, [...layout.sliderIds], states));
}

/** One value per column, so every header can sit right-aligned over the numbers it names. */
function stateColumns(layout: StateLayout, sliderIds: string[], states: State[]): Column[] {
  const robot = states.map((s) => layout.robotConfiguration(s));
  const columns: Column[] = [{ group: '', name: 'n', cells: states.map((_, n) => String(n)) }];
  // The tool's entries: its angles in degrees, its lengths in millimetres.
  layout.tool.positions.forEach((name, j) => {
    const angle = layout.tool.angles.includes(j);
    columns.push({
      group: layout.robot,
      name: `${name} [${angle ? 'deg' : 'mm'}]`,
      cells: robot.map((q) => (angle ? deg(q[j]!) : mm(q[j]!))),
    });
  });
  sliderIds.forEach((id, i) => {
    const poses = states.map((s) => layout.sliderPose(s, i));
    columns.push(
      { group: id, name: 'x [mm]', cells: poses.map((p) => mm(p.x)) },
      { group: id, name: 'y [mm]', cells: poses.map((p) => mm(p.y)) },
      { group: id, name: 'theta [deg]', cells: poses.map((p) => deg(p.theta)) },
    );
  });
  return columns;
}

const GAP = '  ';

/** A group row (each body over its columns), a header row, then the values, right-aligned. */
function formatTable(columns: Column[]): string {
  const widths = columns.map((c) => Math.max(c.name.length, ...c.cells.map((v) => v.length)));
  widenForGroupLabels(columns, widths);
  const row = (cells: string[]): string => cells.map((v, c) => v.padStart(widths[c]!)).join(GAP);
  const lines = [
    groupRow(columns, widths),
    row(columns.map((c) => c.name)),
    ...columns[0]!.cells.map((_, r) => row(columns.map((c) => c.cells[r]!))),
  ];
  return `${lines.map((l) => l.trimEnd()).join('\n')}\n`;
}

/** Spans of consecutive columns of one group: [first column, last column]. */
function groupSpans(columns: Column[]): [number, number][] {
  const spans: [number, number][] = [];
  columns.forEach((c, i) => {
    const last = spans[spans.length - 1];
    if (last && columns[last[0]]!.group === c.group) last[1] = i;
    else spans.push([i, i]);
  });
  return spans;
}

const spanWidth = (widths: number[], [a, b]: [number, number]): number =>
  widths.slice(a, b + 1).reduce((sum, w) => sum + w, 0) + GAP.length * (b - a);

/** A long body name widens the last column of its group, so the label never runs into the next. */
function widenForGroupLabels(columns: Column[], widths: number[]): void {
  for (const span of groupSpans(columns)) {
    const short = columns[span[0]]!.group.length - spanWidth(widths, span);
    if (short > 0) widths[span[1]]! += short;
  }
}

function groupRow(columns: Column[], widths: number[]): string {
  return groupSpans(columns)
    .map((span) => columns[span[0]]!.group.padEnd(spanWidth(widths, span)))
    .join(GAP);
}

function mm(m: number): string {
  return (m * 1000).toFixed(1);
}

function deg(rad: number): string {
  return ((rad * 180) / Math.PI).toFixed(2);
}
