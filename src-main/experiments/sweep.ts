/**
 * A noise sweep (WAFR 2018 Sec. 7, Fig. 5): one ordinary experiment per noise level b, each in its
 * own folder DIR/b-<b> (verifiable, resumable and shardable as any experiment), and the sweep's
 * own report over the levels: DIR/sweep.json, DIR/results.md and two plots, success rate and task
 * time against b with one line per planner and 95% interval bars.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readStoredJson } from '../common/stored-json';
import { readRunRecords, type RunRecord } from './run-record';
import { reportTitle, writeReport, summarize } from './report';
import {
  configOf,
  experimentArgs,
  experimentConfigSchema,
  readExperimentFile,
  runExperiment,
  type ExperimentFile,
  type ExperimentOptions,
} from './runner';
import { meanCiCell, successRowOf, successRowSchema, successText } from './summary-file';
import { lineChartSvg } from './svg-chart';
import { differencesTable, modelDifferences } from './differences';
import { taskLimits } from './run-limits';

/** The folder of level b inside a sweep folder. */
export const levelDir = (dir: string, b: number): string => path.join(dir, `b-${b}`);
const LEVEL_FOLDER = /^b-(\d+(\.\d+)?)$/;

/**
 * The experiment's identity but b (runner.ts), the command, and per level the success and
 * task-time part of each model's summary (summary-file.ts).
 */
export const sweepFileSchema = experimentConfigSchema
  .omit({ noiseSlope: true })
  .extend({
    /** The command that runs (or resumes) the whole sweep into its folder. */
    command: z.string(),
    levels: z.array(
      z
        .object({
          noiseSlope: z.number().min(0),
          /** The level's experiment folder, relative to the sweep folder. */
          folder: z.string(),
          commit: z.string(),
          models: z.array(successRowSchema),
        })
        .strict(),
    ),
  })
  .strict();
export type SweepFile = z.infer<typeof sweepFileSchema>;

export interface SweepOptions extends Omit<
  ExperimentOptions,
  'noiseSlope' | 'outDir' | 'onRun' | 'sessionsDir'
> {
  /** The noise levels b, in the order they run and are plotted. */
  noiseSlopes: readonly number[];
  outDir: string;
  /** Record each run's session log in its level folder's sessions/. */
  sessions?: boolean;
  onRun?(run: { noiseSlope: number; model: string; scene: number; record: RunRecord | null }): void;
}

/** The command line that runs a sweep into outDir. */
export function sweepCommand(
  o: Omit<SweepFile, 'command' | 'levels'> & { noiseSlopes: readonly number[] },
  outDir: string,
): string {
  const { noiseSlopes, ...config } = o;
  return [
    'npx parapush experiment sweep',
    ...experimentArgs(config),
    `--noise-slopes ${noiseSlopes.join(',')}`,
    `--out ${outDir}`,
  ].join(' ');
}

/**
 * Runs (or resumes) every level's experiment, writes each level's own report, then the sweep's;
 * returns the sweep file, or null when interrupted (finished runs are kept).
 */
export async function runSweep(o: SweepOptions): Promise<SweepFile | null> {
  const levels = [...new Set(o.noiseSlopes)];
  if (levels.length !== o.noiseSlopes.length) throw new Error('noise slopes: each level once');
  for (const b of levels) {
    if (o.signal?.aborted) return null;
    const dir = levelDir(o.outDir, b);
    const { noiseSlopes: _levels, sessions, onRun, outDir: _out, ...experiment } = o;
    await runExperiment({
      ...experiment,
      noiseSlope: b,
      outDir: dir,
      ...(sessions ? { sessionsDir: path.join(dir, 'sessions') } : {}),
      onRun: (run) => onRun?.({ ...run, noiseSlope: b }),
    });
    if (o.signal?.aborted) return null;
    writeReport(dir, reportTitle(o.task, { ...o, noiseSlope: b }), readRunRecords(dir), o.models);
  }
  return writeSweepReport(o.outDir, levels, o.taskDef.planner.timeLimit);
}

/** The level folders of a sweep folder, by increasing b. */
export function readLevels(dir: string): { noiseSlope: number; folder: string; file: ExperimentFile }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => {
      const m = LEVEL_FOLDER.exec(name);
      if (!m || !existsSync(path.join(dir, name, 'experiment.json'))) return [];
      return [{ noiseSlope: Number(m[1]), folder: name, file: readExperimentFile(path.join(dir, name)) }];
    })
    .sort((a, b) => a.noiseSlope - b.noiseSlope);
}

/**
 * sweep.json, results.md, success.svg and task-time.svg of a sweep folder from its level folders'
 * runs (`levels`: the order to report them in; by default every level folder by increasing b).
 * The levels must be one experiment apart from b.
 */
export function writeSweepReport(dir: string, levels?: readonly number[], timeLimit?: number): SweepFile {
  const { sweep, files } = sweepReport(dir, levels, timeLimit);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return sweep;
}

/** What writeSweepReport writes, by file name, the sweep file as it will be read and the runs read for it. */
export function sweepReport(
  dir: string,
  levels?: readonly number[],
  /** The runs' time limit (s), where failures are censored; by default the shipped task's. */
  timeLimit?: number,
): { sweep: SweepFile; files: Record<string, string>; runs: SweepRuns } {
  const found = readLevels(dir);
  const chosen = levels
    ? levels.map((b) => {
        const l = found.find((f) => f.noiseSlope === b);
        if (!l) throw new Error(`${dir} has no level folder for b = ${b}`);
        return l;
      })
    : found;
  if (chosen.length === 0) throw new Error(`${dir} holds no level folders (b-<slope>/experiment.json)`);
  const first = chosen[0]!.file;
  for (const l of chosen) {
    const { noiseSlope, ...rest } = configOf(l.file);
    const { noiseSlope: _b, ...base } = configOf(first);
    if (noiseSlope !== l.noiseSlope)
      throw new Error(`${path.join(dir, l.folder)} ran at noise slope ${noiseSlope}, not ${l.noiseSlope}`);
    if (JSON.stringify(rest) !== JSON.stringify(base))
      throw new Error(
        `${path.join(dir, l.folder)} is another experiment than ${chosen[0]!.folder} apart from b`,
      );
  }
  const { noiseSlope: _b, ...config } = configOf(first);
  const slopes = chosen.map((l) => l.noiseSlope);
  const runs: SweepRuns = new Map(chosen.map((l) => [l.folder, readRunRecords(path.join(dir, l.folder))]));
  const sweep: SweepFile = {
    ...config,
    command: sweepCommand({ ...config, noiseSlopes: slopes }, path.relative(process.cwd(), dir) || '.'),
    levels: chosen.map((l) => ({
      noiseSlope: l.noiseSlope,
      folder: l.folder,
      commit: l.file.commit,
      models: summarize(levelRuns(runs, l.folder), config.models).map(successRowOf),
    })),
  };
  // Through the schema, as it will be read: JSON's null for a NaN mean included.
  const stored = sweepFileSchema.parse(JSON.parse(JSON.stringify(sweep)));
  return {
    sweep: stored,
    runs,
    files: {
      'sweep.json': `${JSON.stringify(stored, null, 2)}\n`,
      'results.md': sweepMarkdown(stored, '', runs, timeLimit ?? taskLimits(config.task).timeLimit),
      'success.svg': sweepSvg(stored, 'success'),
      'task-time.svg': sweepSvg(stored, 'task-time'),
    },
  };
}

export function readSweepFile(dir: string): SweepFile {
  return readStoredJson(path.join(dir, 'sweep.json'), sweepFileSchema, { what: 'sweep file' });
}

/** Every run of each level of a sweep, by the level's folder name. */
export type SweepRuns = ReadonlyMap<string, readonly RunRecord[]>;

/** The runs of every level of the sweep stored in dir. */
export function readSweepRuns(dir: string, s: SweepFile): SweepRuns {
  return new Map(s.levels.map((l) => [l.folder, readRunRecords(path.join(dir, l.folder))]));
}

function levelRuns(runs: SweepRuns, folder: string): readonly RunRecord[] {
  const r = runs.get(folder);
  if (!r) throw new Error(`no runs read for the sweep's level folder ${folder}`);
  return r;
}

/**
 * Every pair of the sweep's models at every level, with the tests of an experiment's own table
 * (differences.ts): one row per level and pair. A level whose runs are another experiment folder's
 * (`sameRunsAs`) is tested there and left out here, so no comparison is counted twice.
 */
function sweepDifferences(
  s: SweepFile,
  runs: SweepRuns,
  timeLimit: number,
  sameRunsAs: ReadonlyMap<string, string>,
): string[] {
  if (s.models.length < 2) return [];
  const rows = s.levels
    .filter((l) => !sameRunsAs.has(l.folder))
    .flatMap((l) =>
      modelDifferences(s.models, levelRuns(runs, l.folder), timeLimit).map((difference) => ({
        lead: [String(l.noiseSlope)],
        difference,
      })),
    );
  const twins = s.levels.flatMap((l) => {
    const twin = sameRunsAs.get(l.folder);
    return twin ? [`b = ${l.noiseSlope} holds the same runs as ${twin} and is tested there, once.`, ''] : [];
  });
  return [
    ...twins,
    ...differencesTable('Differences between models at each level', 'pairs over all levels', rows, ['b']),
  ];
}

/** The commit most of a sweep's levels ran at (the first level's on a tie). */
function sweepCommit(s: SweepFile): string {
  const counts = new Map<string, number>();
  for (const l of s.levels) counts.set(l.commit, (counts.get(l.commit) ?? 0) + 1);
  return [...counts.entries()].reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

/**
 * The sweep's table, one row per level and model, and the differences between its models at each
 * level from the levels' runs; `prefix` leads the links to the level folders from where the
 * Markdown is read ('' inside the sweep folder). A level run at another commit than most is
 * flagged in its rows: the levels of one sweep compare only when one code ran them.
 */
export function sweepMarkdown(
  s: SweepFile,
  prefix: string,
  runs: SweepRuns,
  timeLimit: number,
  sameRunsAs: ReadonlyMap<string, string> = new Map(),
): string {
  const commit = sweepCommit(s);
  const odd = s.levels.filter((l) => l.commit !== commit);
  const flag = (l: SweepFile['levels'][number]): string =>
    l.commit === commit ? '' : ` (commit \`${l.commit.slice(0, 7)}\`)`;
  const rows = s.levels.flatMap((l) =>
    l.models.map(
      (m) =>
        `| [${l.noiseSlope}](${prefix}${l.folder}/results.md)${flag(l)} | ${m.model} | ${m.runs} | ${successText(m)} | ${meanCiCell(m.taskTime)} | ${meanCiCell(m.taskTimeAll)} |`,
    ),
  );
  const mixed = odd.length
    ? [
        `**Levels from another commit:** ${odd.map((l) => `b = ${l.noiseSlope} ran at \`${l.commit.slice(0, 7)}\``).join(', ')}, the others at \`${commit.slice(0, 7)}\`; rerun ${odd.length === 1 ? 'that level' : 'those levels'} before comparing across levels.`,
        '',
      ]
    : [];
  return [
    `### ${s.task}: noise sweep${s.noiseReading ? `, b|u| read as ${s.noiseReading}` : ''}`,
    '',
    `Noise slope b of the action-proportional execution noise (WAFR 2018 Sec. 7, Fig. 5: none, low, medium, high = 0, 0.05, 0.075, 0.1; ${s.noiseReading ? `b|u| read as \`${s.noiseReading}\` in place of the task file's reading, for the sensitivity to the reading` : 'the reading of b'}: docs/noise.md), ${s.scenes} scenes per level, seed ${s.seed}; each level is an experiment folder of its own. Rerun: \`${s.command}\`.`,
    '',
    ...mixed,
    '| b | model | n | success (95% Wilson) | task time, successful runs (s, mean ± 95% CI) | task time, all runs, failures at their end (s) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...sweepDifferences(s, runs, timeLimit, sameRunsAs),
  ].join('\n');
}

/** Success rate or task time against b, one line per model with its 95% interval bars (WAFR Fig. 5 a-d). */
export function sweepSvg(s: SweepFile, metric: 'success' | 'task-time'): string {
  const row = (l: SweepFile['levels'][number], model: string) => l.models.find((m) => m.model === model);
  const series = s.models.map((model) => {
    const rows = s.levels.map((l) => row(l, model));
    if (metric === 'success')
      return {
        label: model,
        values: rows.map((r) => r?.successRate ?? Number.NaN),
        low: rows.map((r) => r?.successLow ?? Number.NaN),
        high: rows.map((r) => r?.successHigh ?? Number.NaN),
      };
    const t = rows.map((r) => r?.taskTimeAll);
    const mean = t.map((m) => m?.mean ?? Number.NaN);
    // An interval needs two samples (a row without its count has none to show).
    const half = t.map((m) => (m && (m.n ?? 0) > 1 ? (m.ci95 ?? Number.NaN) : Number.NaN));
    return {
      label: model,
      values: mean,
      low: mean.map((v, i) => v - half[i]!),
      high: mean.map((v, i) => v + half[i]!),
    };
  });
  return lineChartSvg({
    title:
      metric === 'success'
        ? `${s.task}: success rate against noise (95% Wilson)`
        : `${s.task}: total task time against noise (all runs, 95% CI)`,
    xLabel: 'noise slope b',
    yLabel: metric === 'success' ? 'success rate' : 'task time (s)',
    x: s.levels.map((l) => String(l.noiseSlope)),
    series,
    ...(metric === 'success' ? { yMax: 1 } : {}),
  });
}
