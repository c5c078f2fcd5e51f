/**
 * The results page (docs/results.md), the README's results table, the cost tables of
 * docs/cluster.md and every experiment folder's report, generated from the committed experiments'
 * runs and a small table of the papers' own figures, so that no figure is typed by hand. `npm run
 * results` writes them; a test checks that the committed files match.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readRunRecords, type RunRecord } from './run-record';
import { readExperimentFile, type ExperimentFile } from './runner';
import { planningTable, readmePlanningTable, readPlannerBenches } from './planning-table';
import { differencesTable, modelDifferences } from './differences';
import { readLevels, sweepMarkdown, sweepReport, type SweepFile, type SweepRuns } from './sweep';
import { experimentReport, reportTitle } from './report';
import {
  costTable,
  COST_BEGIN,
  COST_END,
  runCosts,
  wafrWallTimes,
  WAFR_BEGIN,
  WAFR_END,
} from './slurm-sizing';
import { readStoredJson } from '../common/stored-json';
import {
  meanCiCell,
  pct,
  successText,
  summaryFileSchema,
  type SummaryFile,
  type SummaryRow,
} from './summary-file';

/**
 * A figure a paper states in its text for one row of one experiment (docs/experiments/papers.json):
 * a success rate (0..1) or a mean task time (s).
 */
export const paperFigureSchema = z
  .object({
    experiment: z.string(),
    model: z.string(),
    metric: z.enum(['success', 'task-time']),
    value: z.number().min(0),
    /** Where the paper says it, e.g. "ISRR 2019, Sec. IV-B1". */
    source: z.string(),
  })
  .strict();
export const paperFiguresSchema = z.array(paperFigureSchema);
export type PaperFigure = z.infer<typeof paperFigureSchema>;

/** Experiments that no longer repeat on the current code (docs/experiments/stale.json). */
export const staleListSchema = z.array(z.object({ experiment: z.string(), reason: z.string() }).strict());
export type StaleList = z.infer<typeof staleListSchema>;

export interface ExperimentResults {
  /** The folder's name under docs/experiments. */
  name: string;
  file: ExperimentFile;
  summary: SummaryFile;
  /** Every run of the experiment (runs/), for the tests of differences between its models. */
  runs: readonly RunRecord[];
}

export type Verdict = 'reproduces' | 'betters' | 'falls short';

/**
 * Against a paper's figure: inside our 95% interval reproduces it; beyond the interval on the
 * better side (more successes, less time) betters it; on the worse side falls short.
 */
export function verdict(row: SummaryRow, figure: PaperFigure): Verdict | null {
  if (figure.metric === 'success') {
    if (figure.value < row.successLow) return 'betters';
    if (figure.value > row.successHigh) return 'falls short';
    return 'reproduces';
  }
  const { mean, ci95 } = row.taskTime;
  if (mean === null || ci95 === null) return null;
  if (figure.value > mean + ci95) return 'betters';
  if (figure.value < mean - ci95) return 'falls short';
  return 'reproduces';
}

const paperValue = (f: PaperFigure): string =>
  f.metric === 'success' ? `success ${pct(f.value)}` : `task time ${f.value} s`;

function paperCell(experiment: string, row: SummaryRow, figures: readonly PaperFigure[]): string {
  const mine = figures.filter((f) => f.experiment === experiment && f.model === row.model);
  return mine.map((f) => `${paperValue(f)} (${f.source}): **${verdict(row, f) ?? '–'}**`).join('; ') || '–';
}

const folderLink = (name: string, prefix: string): string =>
  `[${name}](${prefix}experiments/${name}/results.md)`;

/**
 * The load the runs started at, where recorded: times taken with the cores busy (a load at or
 * above the worker count) are longer than this machine's own figure.
 */
function loadText(runs: readonly RunRecord[]): string {
  const loads = runs.flatMap((r) => (r.loadAtStart === undefined ? [] : [r.loadAtStart]));
  if (loads.length === 0) return '';
  const mean = loads.reduce((a, b) => a + b, 0) / loads.length;
  const of = loads.length === runs.length ? '' : ` (${loads.length} of ${runs.length} runs)`;
  return ` Machine load when runs started${of}: mean ${mean.toFixed(1)}, at most ${Math.max(...loads).toFixed(1)}.`;
}

function experimentSection(e: ExperimentResults, figures: readonly PaperFigure[], stale?: string): string {
  const f = e.file;
  const lines = [
    `## ${e.name}`,
    '',
    ...(stale ? [`**Stale:** ${stale}`, ''] : []),
    `Task ${f.task}${f.loopMode ? ` (${f.loopMode} MPC)` : ''}, ${e.summary.scenes} scenes, seed ${f.seed}, ${e.summary.workers} worker${e.summary.workers === 1 ? '' : 's'}; commit \`${f.commit.slice(0, 12)}\`; rerun: \`${f.command}\`; files: ${folderLink(e.name, '')}.${loadText(e.runs)}`,
    '',
    '| model | n | success (95% Wilson) | task time, successful runs (s, mean ± 95% CI) | task time, all runs (s) | planning per step (s) | actions | outcomes | paper |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...e.summary.models.map(
      (r) =>
        `| ${r.model} | ${r.runs} | ${successText(r)} | ${meanCiCell(r.taskTime)} | ${meanCiCell(r.taskTimeAll)} | ${meanCiCell(r.planningPerStep, 2)} | ${meanCiCell(r.actions)} | ${Object.entries(
          r.outcomes,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} | ${paperCell(e.name, r, figures)} |`,
    ),
    '',
    `![${e.name}: success rate](experiments/${e.name}/success.svg)`,
    '',
    ...comparisons(e),
  ];
  return lines.join('\n');
}

/**
 * Every pair of the experiment's models: success by Fisher's exact test, task time of successful
 * runs by a permutation test. A difference the text claims must be one marked here.
 */
function comparisons(e: ExperimentResults): string[] {
  const models = e.summary.models.map((m) => m.model);
  if (models.length < 2) return [];
  const rows = modelDifferences(models, e.runs).map((difference) => ({ difference }));
  return differencesTable('Differences between models', 'pairs', rows);
}

const HEADER = `# Results

<!-- Generated by \`npm run results\` from docs/experiments/*/summary.json, experiment.json,
papers.json and stale.json. Do not edit: change the data and regenerate. -->

Every table below is an experiment folder in [docs/experiments](experiments): its \`experiment.json\`
names the commit whose code ran it and the command that reruns it, \`runs/\` holds every run's
states, controls and outcome. \`npx parapush experiment verify docs/experiments/NAME\` reruns its
first scene on the current code and checks that every state, control and outcome repeats bit for
bit; \`npm test\` does so for the first actions of every experiment not marked stale. Success rates
carry 95% Wilson intervals, times 95% confidence intervals of the mean; planning times are wall
times and depend on the machine. The paper column compares with a figure the paper states in its
text (docs/experiments/papers.json): inside our interval it **reproduces**, beyond it on the
better side it **betters**, on the worse side it **falls short**.
`;

export function resultsPage(
  experiments: readonly ExperimentResults[],
  figures: readonly PaperFigure[],
  stale: StaleList,
  planning: string,
  sweeps: readonly SweepResults[] = [],
): string {
  const staleReason = (name: string): string | undefined => stale.find((s) => s.experiment === name)?.reason;
  return [
    HEADER,
    PLANNING_SECTION,
    planning,
    '',
    ...experiments.map((e) => experimentSection(e, figures, staleReason(e.name))),
    ...sweeps.map((w) => sweepSection(w, stale)),
  ].join('\n');
}

/** A noise sweep under docs/experiments: its sweep.json and every run of its levels. */
export interface SweepResults {
  name: string;
  sweep: SweepFile;
  runs: SweepRuns;
}

/**
 * A noise sweep (sweep.ts): its table over the levels, the differences between its models at each
 * level and both plots; its level folders are experiments of their own, named NAME/b-<b> (in
 * stale.json too).
 */
export function sweepSection({ name, sweep, runs }: SweepResults, stale: StaleList): string {
  const staleLevels = sweep.levels.flatMap((l) => {
    const s = stale.find((e) => e.experiment === `${name}/${l.folder}`);
    return s ? [`**Stale:** b = ${l.noiseSlope}: ${s.reason}`, ''] : [];
  });
  return [
    `## ${name}`,
    '',
    ...staleLevels,
    `Commits: ${[...new Set(sweep.levels.map((l) => `\`${l.commit.slice(0, 12)}\``))].join(', ')}; files: ${folderLink(name, '')}.`,
    '',
    sweepMarkdown(sweep, `experiments/${name}/`, runs),
    `![${name}: success rate against noise](experiments/${name}/success.svg)`,
    '',
    `![${name}: task time against noise](experiments/${name}/task-time.svg)`,
    '',
  ].join('\n');
}

/** The README's short table: one row per experiment and model that a paper gives a figure for. */
export function readmeTable(
  experiments: readonly ExperimentResults[],
  figures: readonly PaperFigure[],
  stale: StaleList,
): string {
  const rows: string[] = [];
  for (const e of experiments) {
    if (stale.some((s) => s.experiment === e.name)) continue;
    for (const r of e.summary.models) {
      const cell = paperCell(e.name, r, figures);
      if (cell === '–') continue;
      rows.push(
        `| ${folderLink(e.name, 'docs/')} | ${r.model} | ${successText(r)} | ${meanCiCell(r.taskTime)} | ${cell} |`,
      );
    }
  }
  return [
    '| experiment | model | success (95% Wilson) | task time, successful runs (s) | paper |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export const README_BEGIN = '<!-- results table: generated by `npm run results`, do not edit -->';
export const README_END = '<!-- end of results table -->';
export const PLANNING_BEGIN = '<!-- planning table: generated by `npm run results`, do not edit -->';
export const PLANNING_END = '<!-- end of planning table -->';

/** `text` with the block between `begin` and `end` replaced; throws when the markers are missing. */
export function withGeneratedBlock(text: string, begin: string, end: string, table: string): string {
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md: no "${begin}" ... "${end}" block`);
  return `${text.slice(0, from + begin.length)}\n\n${table}\n\n${text.slice(to)}`;
}

const PLANNING_SECTION = `## Planning time per step

Wall time of one planning step on each shipped task with its own planner and default model, mean
and 95% interval over states along the task's committed fine-model run (\`npm run bench -- planner
--task NAME\`, bench/results/planner-NAME.json), against the control the step must fit in for
real-time MPC. The load is the machine's 1-minute load average when the bench started.
`;

/** Experiments committed under docs/experiments whose code no longer repeats them. */
export function readStaleList(root: string): StaleList {
  return readStoredJson(path.join(root, 'docs/experiments/stale.json'), staleListSchema, {
    what: 'stale list',
  });
}

/**
 * What `npm run results` writes, by path relative to the repository root: every experiment
 * folder's and sweep's report, made again from its committed runs (so a summary cannot drift from
 * its runs or from the report code), then docs/results.md and the README's tables from those.
 */
export function generatedResults(
  root: string,
): { 'docs/results.md': string; 'README.md': string } & Record<string, string> {
  const dir = path.join(root, 'docs/experiments');
  const reports: Record<string, string> = {};
  const addReport = (folder: string, files: Record<string, string>): void => {
    for (const [name, text] of Object.entries(files)) reports[`docs/experiments/${folder}/${name}`] = text;
  };
  const experimentFolder = (folder: string): ExperimentResults => {
    const file = readExperimentFile(path.join(dir, folder));
    const runs = readRunRecords(path.join(dir, folder));
    const { files } = experimentReport(reportTitle(file.task, file), runs, file.models);
    addReport(folder, files);
    const summary = summaryFileSchema.parse(JSON.parse(files['summary.json']!));
    return { name: folder, file, summary, runs };
  };
  const sweepFolders = readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, 'sweep.json')))
    .sort();
  const experiments: ExperimentResults[] = readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, 'experiment.json')))
    .sort()
    .map(experimentFolder);
  const figures = readStoredJson(path.join(dir, 'papers.json'), paperFiguresSchema, {
    what: 'paper figures',
  });
  const sweeps = sweepFolders.map((d): SweepResults => {
    for (const level of readLevels(path.join(dir, d))) experimentFolder(`${d}/${level.folder}`);
    const { sweep, files, runs } = sweepReport(path.join(dir, d));
    addReport(d, files);
    return { name: d, sweep, runs };
  });
  const stale = readStaleList(root);
  const levelNames = sweeps.flatMap((w) => w.sweep.levels.map((l) => `${w.name}/${l.folder}`));
  for (const s of stale)
    if (!experiments.some((e) => e.name === s.experiment) && !levelNames.includes(s.experiment))
      throw new Error(`stale.json names ${s.experiment}, which is not an experiment folder`);
  const benches = readPlannerBenches(path.join(root, 'bench/results'));
  const planning = planningTable(benches);
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const costs = runCosts(experiments);
  const cluster = readFileSync(path.join(root, 'docs/cluster.md'), 'utf8');
  return {
    ...reports,
    'docs/cluster.md': withGeneratedBlock(
      withGeneratedBlock(cluster, COST_BEGIN, COST_END, costTable(costs)),
      WAFR_BEGIN,
      WAFR_END,
      wafrWallTimes(costs, experiments),
    ),
    'docs/results.md': resultsPage(experiments, figures, stale, planning, sweeps),
    'README.md': withGeneratedBlock(
      withGeneratedBlock(readme, README_BEGIN, README_END, readmeTable(experiments, figures, stale)),
      PLANNING_BEGIN,
      PLANNING_END,
      readmePlanningTable(benches),
    ),
  };
}
