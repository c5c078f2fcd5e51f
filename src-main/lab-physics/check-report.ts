/**
 * `physics check`'s output: a table for people (mm and degrees), and an SVG of the error per step
 * (the worst object's position error at each control of each run, the planner's beside it).
 */
import { lineChartSvg, type Series } from '../experiments/svg-chart';
import type { CheckReport, ErrorSummary } from './check';

const mm = (m: number): string => (Number.isFinite(m) ? (m * 1000).toFixed(1) : '-');
const deg = (rad: number): string => (Number.isFinite(rad) ? ((rad * 180) / Math.PI).toFixed(1) : '-');

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function summaryCells(s: ErrorSummary | null): string[] {
  if (!s) return ['-', '-', '-', '-'];
  return [mm(s.position.p50), mm(s.position.p95), deg(s.yaw.p50), deg(s.yaw.p95)];
}

/** The table people read: one row per run and one over all runs. */
export function checkTable(report: CheckReport): string {
  const lines = [
    `Prediction error of the fine model (${report.model}), one executed control from the observed state:`,
    '',
    row([
      'log',
      'controls',
      'model pos p50 (mm)',
      'p95',
      'yaw p50 (deg)',
      'p95',
      'planner pos p50 (mm)',
      'p95',
      'yaw p50 (deg)',
      'p95',
    ]),
    row(Array<string>(10).fill('---')),
  ];
  for (const r of report.runs)
    lines.push(
      row([
        r.file.split('/').pop()!,
        String(r.steps.length),
        ...summaryCells(r.model),
        ...summaryCells(r.planner),
      ]),
    );
  lines.push(
    row([
      '**all runs**',
      String(report.runs.reduce((n, r) => n + r.steps.length, 0)),
      ...summaryCells(report.modelAll),
      ...summaryCells(report.plannerAll),
    ]),
  );
  lines.push('', 'Per object and step (mm / deg): model, then planner where logged.');
  for (const r of report.runs) {
    lines.push(`${r.file.split('/').pop()!}:`);
    for (const s of r.steps) {
      const objects = s.model
        .map((o, i) => {
          const p = s.planner?.[i];
          return `${o.id} ${mm(o.position)} / ${deg(o.yaw)}${p ? ` (planner ${mm(p.position)} / ${deg(p.yaw)})` : ''}`;
        })
        .join(', ');
      lines.push(`  step ${s.push} at ${s.start.toFixed(1)} s: ${objects}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Error per step: the largest object position error of each control, one line per run. */
export function checkSvg(report: CheckReport): string {
  const steps = Math.max(1, ...report.runs.map((r) => r.steps.length));
  const worst = (errors: { position: number }[] | null): number =>
    errors ? Math.max(...errors.map((e) => e.position)) * 1000 : NaN;
  const series: Series[] = [];
  report.runs.forEach((r, i) => {
    const pad = (values: number[]): number[] => [
      ...values,
      ...Array<number>(steps - values.length).fill(NaN),
    ];
    series.push({ label: `run ${i + 1} model`, values: pad(r.steps.map((s) => worst(s.model))) });
    if (r.planner)
      series.push({ label: `run ${i + 1} planner`, values: pad(r.steps.map((s) => worst(s.planner))) });
  });
  return lineChartSvg({
    title: 'Prediction error per executed control',
    xLabel: 'control',
    yLabel: 'position error, worst object (mm)',
    x: Array.from({ length: steps }, (_, i) => String(i)),
    series,
  });
}
