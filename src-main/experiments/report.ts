/**
 * Turns run records into the experiment's results: summary.json, results.md (success rate with
 * Wilson interval, task time mean with 95% CI, planning time per step, actions) and two SVG
 * plots (success rate and task time per model).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { wasPlanned, type RunRecord } from './run-record';
import { meanCi95, meanCiText, wilsonInterval } from './stats';
import { barChartSvg } from './svg-chart';

type MeanCi = ReturnType<typeof meanCi95>;

export interface ModelSummary {
  model: string;
  runs: number;
  successes: number;
  successRate: number;
  successLow: number;
  successHigh: number;
  /** Task time over successful runs (s): the papers report the time of completed tasks. */
  taskTime: MeanCi;
  /** Task time over all runs (s). */
  taskTimeAll: MeanCi;
  /** Planning wall time per planned MPC step over all runs (s); steps without a plan left out. */
  planningPerStep: MeanCi & { max: number };
  actions: MeanCi;
  /** Runs per outcome (success, failure kinds, action-limit, time-limit). */
  outcomes: Record<string, number>;
}

export function summarize(records: readonly RunRecord[], modelOrder: readonly string[] = []): ModelSummary[] {
  const models = [...new Set([...modelOrder, ...records.map((r) => r.model)])].filter((m) =>
    records.some((r) => r.model === m),
  );
  return models.map((model) => {
    const rs = records.filter((r) => r.model === model);
    const ok = rs.filter((r) => r.summary.outcome === 'success');
    const w = wilsonInterval(ok.length, rs.length);
    const steps = rs.flatMap((r) => r.summary.planningTimes.filter(wasPlanned));
    const outcomes: Record<string, number> = {};
    for (const r of rs) {
      const key = r.summary.outcome === 'failure' ? `failure:${r.summary.failure}` : r.summary.outcome;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    return {
      model,
      runs: rs.length,
      successes: ok.length,
      successRate: rs.length ? ok.length / rs.length : 0,
      successLow: w.low,
      successHigh: w.high,
      taskTime: meanCi95(ok.map((r) => r.summary.taskTime)),
      taskTimeAll: meanCi95(rs.map((r) => r.summary.taskTime)),
      planningPerStep: { ...meanCi95(steps), max: steps.length ? Math.max(...steps) : Number.NaN },
      actions: meanCi95(rs.map((r) => r.summary.actions)),
      outcomes,
    };
  });
}

const pct = (v: number): string => `${(100 * v).toFixed(0)}%`;
const num = (v: number, d = 1): string => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const pm = (m: MeanCi, d = 1): string => meanCiText(m, d);

export function markdownTable(task: string, summaries: readonly ModelSummary[]): string {
  const lines = [
    `| model | runs | success (95% Wilson) | task time, successful runs (s, mean ± 95% CI) | planning per step (s, mean ± 95% CI; max) | actions (mean ± 95% CI) | outcomes |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...summaries.map(
      (s) =>
        `| ${s.model} | ${s.runs} | ${pct(s.successRate)} (${pct(s.successLow)}–${pct(s.successHigh)}) | ${pm(s.taskTime)} | ${pm(s.planningPerStep, 2)}; ${num(s.planningPerStep.max, 2)} | ${pm(s.actions)} | ${Object.entries(
          s.outcomes,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
    ),
  ];
  return `### ${task}\n\n${lines.join('\n')}\n`;
}

/** The report's title: the task, and the loop mode and noise slope when they are not the task's. */
export function reportTitle(
  task: string,
  config: { loopMode?: string; noiseSlope?: number; noiseReading?: string },
): string {
  const notes = [
    ...(config.loopMode ? [`${config.loopMode} MPC`] : []),
    ...(config.noiseSlope !== undefined ? [`noise slope b = ${config.noiseSlope}`] : []),
    ...(config.noiseReading !== undefined ? [`b|u| read as ${config.noiseReading}`] : []),
  ];
  return notes.length ? `${task} (${notes.join(', ')})` : task;
}

/** An experiment folder's report by file name: summary.json, results.md and the two plots. */
export function experimentReport(
  task: string,
  records: readonly RunRecord[],
  modelOrder: readonly string[] = [],
): { summaries: ModelSummary[]; files: Record<string, string> } {
  const summaries = summarize(records, modelOrder);
  const first = records[0];
  const meta = first
    ? {
        task,
        planner: first.planner,
        workers: first.workers,
        controlDuration: first.controlDuration,
        scenes: new Set(records.map((r) => r.scene)).size,
      }
    : { task };
  const files = {
    'summary.json': `${JSON.stringify({ ...meta, models: summaries }, null, 2)}\n`,
    'results.md': markdownTable(task, summaries),
    'success.svg': barChartSvg({
      title: `${task}: success rate (95% Wilson interval)`,
      yLabel: 'success rate',
      yMax: 1,
      bars: summaries.map((s) => ({
        label: s.model,
        value: s.successRate,
        low: s.successLow,
        high: s.successHigh,
      })),
    }),
    'task-time.svg': barChartSvg({
      title: `${task}: task time of successful runs (95% CI)`,
      yLabel: 'task time (s)',
      bars: summaries.map((s) => ({
        label: s.model,
        value: s.taskTime.mean,
        low: s.taskTime.mean - s.taskTime.ci95,
        high: s.taskTime.mean + s.taskTime.ci95,
      })),
    }),
  };
  return { summaries, files };
}

export function writeReport(
  outDir: string,
  task: string,
  records: readonly RunRecord[],
  modelOrder: readonly string[] = [],
): ModelSummary[] {
  const { summaries, files } = experimentReport(task, records, modelOrder);
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(outDir, name), text);
  return summaries;
}
