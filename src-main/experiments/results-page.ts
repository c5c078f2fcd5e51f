/**
 * The results page (docs/results.md), the README's results and claims tables, the cost tables of
 * docs/cluster.md and every experiment folder's report, generated from the committed experiments'
 * runs and the papers' figures and claims (claims.ts), so that no figure is typed by hand. `npm run
 * results` writes them; a test checks that the committed files match.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readRunRecords, type RunRecord } from './run-record';
import { readExperimentFile, type ExperimentFile } from './runner';
import { planningTable, readmePlanningTable, readPlannerBenches } from './planning-table';
import { differencesTable, modelDifferences, PAIRED_TESTS } from './differences';
import { readLevels, sweepMarkdown, sweepReport, type SweepFile, type SweepRuns } from './sweep';
import {
  measuredText,
  papersFileSchema,
  pointVerdict,
  scoreClaim,
  testText,
  verdictText,
  type PaperFigure,
  type ScoredClaim,
} from './claims';
import { benchClaims } from './bench-claims';
import { tasksDir } from '../common/paths';
import { loadTaskFile, type LoadedTask } from '../planning/task-file';
import { noiseTables, NOISE_BEGIN, NOISE_END, readingOf } from './noise-table';
import { isProjectLimit, outcomeText, PAPER_LIMITS, runLimits, type RunLimits } from './run-limits';
import {
  experimentInputs,
  fullyVerifiedCommits,
  gitHistory,
  readVerificationRecords,
  verificationState,
  verificationText,
  type CodeHistory,
  type VerificationState,
} from './verification';
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

/** Experiments that no longer repeat on the current code (docs/experiments/stale.json). */
export const staleListSchema = z.array(z.object({ experiment: z.string(), reason: z.string() }).strict());
export type StaleList = z.infer<typeof staleListSchema>;

export interface ExperimentResults {
  /** The folder's name under docs/experiments (a sweep's level: NAME/b-<b>). */
  name: string;
  file: ExperimentFile;
  summary: SummaryFile;
  /** Every run of the experiment (runs/), for the tests of differences between its models. */
  runs: readonly RunRecord[];
  /** The task's limits, by which runs end and at which a failed run's time is set. */
  limits: RunLimits;
  /** Its full verification against the code's history (verification.ts). */
  verification: VerificationState;
  /** The clean commits at which every run was repeated bit for bit. */
  repeatedAt: string[];
}

/** The paper cell of a row: each point figure a paper states for it, with its verdict. */
function paperCell(
  experiment: string,
  row: SummaryRow,
  figures: readonly PaperFigure[],
  claims: readonly ScoredClaim[],
): string {
  const mine = figures.filter((f) => f.experiment === experiment && f.model === row.model);
  return (
    mine
      .map((f) => {
        const v = pointVerdict(row, f, claims);
        const why = v?.failing.length
          ? ` (${v.failing.map((c) => `"${c.claim.claim}" ${c.verdict}`).join('; ')})`
          : '';
        return `${paperValue(f)} (${f.source}): **${v?.verdict ?? '–'}**${why}`;
      })
      .join('; ') || '–'
  );
}

const paperValue = (f: PaperFigure): string =>
  f.metric === 'success' ? `success ${pct(f.value)}` : `task time ${f.value} s`;

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

/** The outcomes cell: each way the runs ended, limits named with their value. */
function outcomesCell(e: ExperimentResults, r: SummaryRow): string {
  return Object.entries(r.outcomes)
    .map(([k, v]) => `${outcomeText(e.file.task, k, e.limits)} ${v}`)
    .join(', ');
}

/** Runs that ended at a limit no paper sets for the task: they need a rerun without it. */
function projectLimitNote(e: ExperimentResults): string[] {
  const ended = e.summary.models.flatMap((r) =>
    Object.entries(r.outcomes)
      .filter(([k]) => isProjectLimit(e.file.task, k))
      .map(([k, v]) => `${r.model} ${v} at the ${outcomeText(e.file.task, k, e.limits)}`),
  );
  if (ended.length === 0) return [];
  const paper = (PAPER_LIMITS[e.file.task] ?? []).map((l) => l.source).join(', ') || 'none';
  return [
    `**Ended by a limit the paper does not set** (the paper's limits: ${paper}): ${ended.join('; ')}. These runs count as failures here; by the paper's rule they would run on.`,
    '',
  ];
}

function experimentSection(
  e: ExperimentResults,
  figures: readonly PaperFigure[],
  claims: readonly ScoredClaim[],
  stale?: string,
): string {
  const f = e.file;
  const lines = [
    `## ${e.name}`,
    '',
    ...(stale ? [`**Stale:** ${stale}`, ''] : []),
    `Task ${f.task}${f.loopMode ? ` (${f.loopMode} MPC)` : ''}, ${e.summary.scenes} scenes, seed ${f.seed}, ${e.summary.workers} worker${e.summary.workers === 1 ? '' : 's'}; commit \`${f.commit.slice(0, 12)}\`; rerun: \`${f.command}\`; files: ${folderLink(e.name, '')}.${loadText(e.runs)}`,
    '',
    verificationText(e.verification).replace('DIR', `docs/experiments/${e.name}`),
    '',
    ...projectLimitNote(e),
    '| model | n | success (95% Wilson) | task time, successful runs (s, mean ± 95% CI) | task time, all runs (s) | planning per step (s) | actions | outcomes | paper |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...e.summary.models.map(
      (r) =>
        `| ${r.model} | ${r.runs} | ${successText(r)} | ${meanCiCell(r.taskTime)} | ${meanCiCell(r.taskTimeAll)} | ${meanCiCell(r.planningPerStep, 2)} | ${meanCiCell(r.actions)} | ${outcomesCell(e, r)} | ${paperCell(e.name, r, figures, claims)} |`,
    ),
    '',
    `![${e.name}: success rate](experiments/${e.name}/success.svg)`,
    '',
    ...comparisons(e),
  ];
  return lines.join('\n');
}

/** Every pair of the experiment's models, paired by scene (differences.ts). */
function comparisons(e: ExperimentResults): string[] {
  const models = e.summary.models.map((m) => m.model);
  if (models.length < 2) return [];
  const rows = modelDifferences(models, e.runs, e.limits.timeLimit).map((difference) => ({ difference }));
  return differencesTable('Differences between models', 'pairs', rows);
}

const HEADER = `# Results

<!-- Generated by \`npm run results\` from docs/experiments/*/summary.json, experiment.json,
verification/, papers.json and stale.json. Do not edit: change the data and regenerate. -->

Every table below is an experiment folder in [docs/experiments](experiments): its \`experiment.json\`
names the commit whose code ran it and the command that reruns it, \`runs/\` holds every run's
states, controls and outcome. \`npx parapush experiment verify docs/experiments/NAME\` reruns its
first scene on the current code and checks that every state, control and outcome repeats bit for
bit; \`npm test\` does so for the first actions of every experiment not marked stale, and
\`--full\` reruns every scene of every model and records it (\`verification/\`). Success rates
carry 95% Wilson intervals, times 95% confidence intervals of the mean; planning times are wall
times and depend on the machine. Models are compared ${PAIRED_TESTS}.
`;

/** The claims section: every relative claim of the papers with its paired test and verdict. */
function claimsSection(claims: readonly ScoredClaim[], bench: readonly string[]): string {
  return ['## The papers\u2019 claims', '', CLAIMS_INTRO, '', claimsTable(claims, ''), '', ...bench].join(
    '\n',
  );
}

const CLAIMS_INTRO = `Each relative claim of the three papers (docs/experiments/papers.json), judged on the scenes both
sides ran, by a paired test: it **reproduces** when the difference has the paper's direction at
p < 0.05 (for a claim of no difference: when the test finds none), is **contradicted** when it
has the other direction at p < 0.05, is **not shown** when the test finds no difference, and is
**not measured** when the sides did not run in one run of the code (one commit, task and seed;
for success, a commit at which every run of both sides was repeated bit for bit counts as one,
unless one ended at the wall-clock time limit). The papers' own times were taken on their
hardware and are shown for reference only.`;

/** The claims table, links relative to `prefix` ('' in docs/, 'docs/' in the README). */
export function claimsTable(claims: readonly ScoredClaim[], prefix: string): string {
  const side = (s: { experiment: string; model: string }): string => `${s.model} (${s.experiment})`;
  return [
    '| paper | claim | a vs b | measured, a vs b | paired test | paper\u2019s hardware (not scored) | verdict |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...claims.map(
      (c) =>
        `| ${c.claim.source} | ${c.claim.claim} | ${side(c.claim.a)} vs ${side(c.claim.b)} | ${measuredText(c)} | ${testText(c)} | ${c.claim.reference ?? '–'} | ${verdictText(c).replaceAll('{docs}', prefix)} |`,
    ),
  ].join('\n');
}

export function resultsPage(
  experiments: readonly ExperimentResults[],
  figures: readonly PaperFigure[],
  claims: readonly ScoredClaim[],
  stale: StaleList,
  planning: string,
  sweeps: readonly SweepResults[] = [],
  bench: readonly string[] = [],
): string {
  const staleReason = (name: string): string | undefined => stale.find((s) => s.experiment === name)?.reason;
  return [
    HEADER,
    claimsSection(claims, bench),
    PLANNING_SECTION,
    planning,
    '',
    ...experiments.map((e) => experimentSection(e, figures, claims, staleReason(e.name))),
    ...sweeps.map((w) => sweepSection(w, stale)),
  ].join('\n');
}

/** A noise sweep under docs/experiments: its sweep.json, every run of its levels, and its levels as experiments. */
export interface SweepResults {
  name: string;
  sweep: SweepFile;
  runs: SweepRuns;
  levels: readonly ExperimentResults[];
  /** Per level folder, the experiment folder that holds the same runs (counted there, once). */
  sameRunsAs: ReadonlyMap<string, string>;
}

/**
 * A noise sweep (sweep.ts): its table over the levels, the differences between its models at each
 * level and both plots; its level folders are experiments of their own, named NAME/b-<b> (in
 * stale.json too).
 */
export function sweepSection(
  { name, sweep, runs, levels, sameRunsAs }: SweepResults,
  stale: StaleList,
): string {
  const staleLevels = sweep.levels.flatMap((l) => {
    const s = stale.find((e) => e.experiment === `${name}/${l.folder}`);
    return s ? [`**Stale:** b = ${l.noiseSlope}: ${s.reason}`, ''] : [];
  });
  const verification = levels.map(
    (l) =>
      `- b = ${l.file.noiseSlope ?? 0}: ${verificationText(l.verification).replace('DIR', `docs/experiments/${l.name}`)}`,
  );
  // A level's runs ended by a limit its paper does not set (the level's note, led by its b).
  const limits = levels.flatMap((l) =>
    projectLimitNote(l).map((line) => (line ? `b = ${l.file.noiseSlope ?? 0}: ${line}` : line)),
  );
  return [
    `## ${name}`,
    '',
    ...staleLevels,
    `Commits: ${[...new Set(sweep.levels.map((l) => `\`${l.commit.slice(0, 12)}\``))].join(', ')}; files: ${folderLink(name, '')}.`,
    '',
    ...verification,
    '',
    ...limits,
    sweepMarkdown(sweep, `experiments/${name}/`, runs, levels[0]?.limits.timeLimit ?? Number.NaN, sameRunsAs),
    `![${name}: success rate against noise](experiments/${name}/success.svg)`,
    '',
    `![${name}: task time against noise](experiments/${name}/task-time.svg)`,
    '',
  ].join('\n');
}

/** The README's table of point figures: one row per experiment and model that a paper gives a figure for. */
export function readmeTable(
  experiments: readonly ExperimentResults[],
  figures: readonly PaperFigure[],
  claims: readonly ScoredClaim[],
  stale: StaleList,
  bench: readonly string[] = [],
): string {
  const rows: string[] = [];
  for (const e of experiments) {
    if (stale.some((s) => s.experiment === e.name)) continue;
    for (const r of e.summary.models) {
      const cell = paperCell(e.name, r, figures, claims);
      if (cell === '–') continue;
      rows.push(`| ${folderLink(e.name, 'docs/')} | ${r.model} | ${successText(r)} | ${cell} |`);
    }
  }
  return [
    '| experiment | model | success (95% Wilson) | paper |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    claimsTable(claims, 'docs/'),
    ...(bench.length ? ['', ...bench.slice(0, -1)] : []),
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
  if (from < 0 || to < from) throw new Error(`no "${begin}" ... "${end}" block`);
  return `${text.slice(0, from + begin.length)}\n\n${table}\n\n${text.slice(to)}`;
}

const PLANNING_SECTION = `## Planning time per step

Wall time of one planning step on each shipped task with its own planner and default model, mean
and 95% interval over states along the task's committed fine-model run (\`npm run bench -- planner
--task NAME\`, bench/results/planner-NAME.json), against the control the step must fit in for
real-time MPC. The load is the machine's 1-minute load average when the bench started.
`;

/** `{ stale: reason }` for an experiment the stale list names, else nothing. */
function staleEntry(stale: StaleList, name: string): { stale?: string } {
  const entry = stale.find((s) => s.experiment === name);
  return entry ? { stale: entry.reason } : {};
}

/** Experiments committed under docs/experiments whose code no longer repeats them. */
export function readStaleList(root: string): StaleList {
  return readStoredJson(path.join(root, 'docs/experiments/stale.json'), staleListSchema, {
    what: 'stale list',
  });
}

/** Whether two sets of runs are the same runs: every scene and model with the same states, controls and outcome. */
export function sameRuns(x: readonly RunRecord[], y: readonly RunRecord[]): boolean {
  if (x.length === 0 || x.length !== y.length) return false;
  const key = (r: RunRecord): string => `${r.model}#${r.scene}`;
  const other = new Map(y.map((r) => [key(r), r]));
  return x.every((r) => {
    const o = other.get(key(r));
    return (
      o !== undefined &&
      o.summary.outcome === r.summary.outcome &&
      JSON.stringify(o.summary.states) === JSON.stringify(r.summary.states) &&
      JSON.stringify(o.summary.controls) === JSON.stringify(r.summary.controls)
    );
  });
}

/**
 * What `npm run results` writes, by path relative to the repository root: every experiment
 * folder's and sweep's report, made again from its committed runs (so a summary cannot drift from
 * its runs or from the report code), then docs/results.md and the README's tables from those.
 * `history`: the code's git history, for the verification marks (the checkout's by default).
 */
export function generatedResults(
  root: string,
  history: CodeHistory = gitHistory(),
): { 'docs/results.md': string; 'README.md': string } & Record<string, string> {
  const dir = path.join(root, 'docs/experiments');
  const reports: Record<string, string> = {};
  const addReport = (folder: string, files: Record<string, string>): void => {
    for (const [name, text] of Object.entries(files)) reports[`docs/experiments/${folder}/${name}`] = text;
  };
  // The task's files in the code's checkout, as git knows them; each read once.
  const tasks = new Map<string, LoadedTask>();
  const taskOf = (name: string): LoadedTask => {
    if (!tasks.has(name)) tasks.set(name, loadTaskFile(path.join(tasksDir, `${name}.json`)));
    return tasks.get(name)!;
  };
  const experimentFolder = (folder: string): ExperimentResults => {
    const file = readExperimentFile(path.join(dir, folder));
    const task = taskOf(file.task);
    const runs = readRunRecords(path.join(dir, folder));
    const { files } = experimentReport(reportTitle(file.task, file), runs, file.models);
    addReport(folder, files);
    const summary = summaryFileSchema.parse(JSON.parse(files['summary.json']!));
    const records = readVerificationRecords(path.join(dir, folder));
    return {
      name: folder,
      file,
      summary,
      runs,
      limits: runLimits(task.task),
      verification: verificationState(records, file, {
        history,
        inputs: experimentInputs(task, file.models),
      }),
      repeatedAt: fullyVerifiedCommits(records, file.models, file.scenes),
    };
  };
  const sweepFolders = readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, 'sweep.json')))
    .sort();
  const experiments: ExperimentResults[] = readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, 'experiment.json')))
    .sort()
    .map(experimentFolder);
  const papers = readStoredJson(path.join(dir, 'papers.json'), papersFileSchema, {
    what: "the papers' figures and claims",
  });
  const sweeps = sweepFolders.map((d): SweepResults => {
    const levels = readLevels(path.join(dir, d)).map((level) => experimentFolder(`${d}/${level.folder}`));
    const { sweep, files, runs } = sweepReport(path.join(dir, d));
    addReport(d, files);
    const sameRunsAs = new Map<string, string>();
    for (const l of levels) {
      const twin = experiments.find((e) => sameRuns(l.runs, e.runs));
      if (twin) sameRunsAs.set(l.name.slice(d.length + 1), twin.name);
    }
    return { name: d, sweep, runs, levels, sameRunsAs };
  });
  const stale = readStaleList(root);
  const levelNames = sweeps.flatMap((w) => w.sweep.levels.map((l) => `${w.name}/${l.folder}`));
  for (const s of stale)
    if (!experiments.some((e) => e.name === s.experiment) && !levelNames.includes(s.experiment))
      throw new Error(`stale.json names ${s.experiment}, which is not an experiment folder`);
  const everyExperiment = [...experiments, ...sweeps.flatMap((w) => w.levels)].map((e) => ({
    name: e.name,
    file: e.file,
    runs: e.runs,
    timeLimit: e.limits.timeLimit,
    repeatedAt: e.repeatedAt,
    ...staleEntry(stale, e.name),
  }));
  const claims = papers.claims.map((c) => scoreClaim(c, everyExperiment));
  const bench = benchClaims(root);
  const benches = readPlannerBenches(path.join(root, 'bench/results'));
  const planning = planningTable(benches);
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const costs = runCosts(experiments);
  const cluster = readFileSync(path.join(root, 'docs/cluster.md'), 'utf8');
  const noisePage = path.join(root, 'docs/noise.md');
  const noise: Record<string, string> = existsSync(noisePage)
    ? {
        'docs/noise.md': withGeneratedBlock(
          readFileSync(noisePage, 'utf8'),
          NOISE_BEGIN,
          NOISE_END,
          noiseTables(
            root,
            [...experiments, ...sweeps.flatMap((w) => w.levels)].map((e) => ({
              name: e.name,
              task: e.file.task,
              taskReading: readingOf(taskOf(e.file.task).task),
              ...(e.file.noiseReading ? { noiseReading: e.file.noiseReading } : {}),
            })),
            sweeps.map((w) => ({
              name: w.name,
              task: w.sweep.task,
              taskReading: readingOf(taskOf(w.sweep.task).task),
              ...(w.sweep.noiseReading ? { noiseReading: w.sweep.noiseReading } : {}),
              models: w.sweep.models,
              levels: w.levels.map((l) => ({
                noiseSlope: l.file.noiseSlope ?? 0,
                commit: l.file.commit,
                runs: l.runs,
                repeatedAt: l.repeatedAt,
              })),
            })),
          ),
        ),
      }
    : {};
  return {
    ...noise,
    ...reports,
    'docs/cluster.md': withGeneratedBlock(
      withGeneratedBlock(cluster, COST_BEGIN, COST_END, costTable(costs)),
      WAFR_BEGIN,
      WAFR_END,
      wafrWallTimes(costs, experiments),
    ),
    'docs/results.md': resultsPage(experiments, papers.figures, claims, stale, planning, sweeps, bench),
    'README.md': withGeneratedBlock(
      withGeneratedBlock(
        readme,
        README_BEGIN,
        README_END,
        readmeTable(experiments, papers.figures, claims, stale, bench),
      ),
      PLANNING_BEGIN,
      PLANNING_END,
      readmePlanningTable(benches),
    ),
  };
}
