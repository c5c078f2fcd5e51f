/**
 * `parapush experiment`: MPC runs of a task over sampled scenes for several prediction models,
 * resumable and shardable; `parapush experiment merge` joins shard folders and writes the report;
 * `parapush experiment verify` reruns a few stored runs and checks they repeat bit for bit;
 * `parapush experiment sweep` runs the experiment once per noise level (WAFR 2018 Fig. 5);
 * `parapush experiment slurm` and `status` submit it to a Slurm cluster and follow it
 * (experiment-slurm.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { tasksDir } from '../../common/paths';
import { defaultWorkerCount } from '../../parareal/fine-pool';
import { loadTaskFile, TaskFileError, type LoadedTask, type Task } from '../../planning/task-file';
import { TaskOverrideError } from '../../planning/task-for-run';
import { readRunRecords, type RunRecord } from '../../experiments/run-record';
import { reportTitle, writeReport } from '../../experiments/report';
import { itemBar } from '../../common/progress-bar';
import { parseRunSpec } from '../../experiments/run-spec';
import {
  currentCommit,
  describeInputCheck,
  recordInputs,
  type InputCheck,
} from '../../experiments/provenance';
import {
  configOf,
  experimentTask,
  noiseReadingSchema,
  type ExperimentConfig,
  type NoiseReading,
  readExperimentFile,
  runExperiment,
  shardScenes,
} from '../../experiments/runner';
import { mergeShards, MergeError } from '../../experiments/merge-shards';
import { describeDifference, verifyExperiment, VerifyError } from '../../experiments/verify';
import { verifyFull } from '../../experiments/verification';
import { runSweep, writeSweepReport } from '../../experiments/sweep';
import { EXIT_FAILURE, requireFile, UsageError } from '../errors';
import { parseShard } from '../shard-option';
import type { Shard } from '../../common/shard';
import { wholeNumber } from '../whole-number';
import { registerExperimentSlurmCommands } from './experiment-slurm';

interface ExperimentCliOptions {
  task: string;
  models: string;
  scenes: string;
  seed: string;
  out: string;
  shard: string;
  workers?: string;
  async?: boolean;
  noiseSlope?: string;
  noiseReading?: string;
  sessions?: boolean;
  json?: boolean;
}

/** A shipped task name (isrr-obstacle, ...) or a path to a task file. */
function loadTask(arg: string): LoadedTask {
  const shipped = path.join(tasksDir, `${arg}.json`);
  if (!existsSync(shipped) && !looksLikePath(arg)) {
    throw new UsageError(`--task: no shipped task "${arg}" (${shippedTaskNames().join(', ')}), nor a file`);
  }
  const file = existsSync(shipped) ? shipped : requireFile(arg, '--task');
  try {
    return loadTaskFile(file);
  } catch (e) {
    if (e instanceof TaskFileError) throw new UsageError(e.message);
    throw e;
  }
}

/** A bare word is meant as a shipped task name; anything with a folder or an extension, as a file. */
const looksLikePath = (arg: string): boolean =>
  arg.includes('/') || arg.includes(path.sep) || path.extname(arg) !== '';

const shippedTaskNames = (): string[] =>
  readdirSync(tasksDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.basename(f, '.json'))
    .sort();

/**
 * The options the experiment command and its sweep share, parsed and checked: the task (for the
 * checks of the options that change it) and the batch's inputs as runExperiment and runSweep take them.
 */
function experimentInputs(opts: ExperimentCliOptions) {
  const loaded = loadTask(opts.task);
  const { task, scene } = loaded;
  const models = opts.models
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (models.length === 0) throw new UsageError('--models: name at least one model');
  const reading = opts.noiseReading === undefined ? undefined : noiseReading(opts.noiseReading);
  if (reading) checkOverride(task, { noiseReading: reading }, '--noise-reading');
  for (const m of models) {
    try {
      parseRunSpec(m);
    } catch (e) {
      throw new UsageError(`--models: ${(e as Error).message}`);
    }
  }
  return {
    task,
    batch: {
      task: task.name,
      taskDef: task,
      scene,
      inputs: recordInputs({ taskFile: loaded.file, sceneFile: loaded.sceneFile, models }),
      models,
      scenes: wholeNumber('--scenes', opts.scenes, 1),
      seed: wholeNumber('--seed', opts.seed, 0),
      ...(opts.async ? { loopMode: 'asynchronous' as const } : {}),
      ...(reading ? { noiseReading: reading } : {}),
      outDir: opts.out,
      shard: parseShard(opts.shard),
      workers: opts.workers ? wholeNumber('--workers', opts.workers, 1) : defaultWorkerCount(),
    },
  };
}

/** A noise slope b from the command line: a number >= 0. */
function noiseSlope(name: string, arg: string): number {
  const v = Number(arg);
  if (arg.trim() === '' || !Number.isFinite(v) || v < 0)
    throw new UsageError(`${name}: expected a number >= 0, got "${arg}"`);
  return v;
}

/** A reading of b|u| from the command line: one the task file can name. */
function noiseReading(arg: string): NoiseReading {
  const r = noiseReadingSchema.safeParse(arg);
  if (!r.success)
    throw new UsageError(`--noise-reading: expected ${noiseReadingSchema.options.join(' | ')}, got "${arg}"`);
  return r.data;
}

/**
 * A noise slope or reading on a task whose noise is not action-proportional is bad input, caught
 * before any run.
 */
function checkOverride(
  task: Task,
  override: Pick<ExperimentConfig, 'noiseSlope' | 'noiseReading'>,
  option: string,
): void {
  try {
    experimentTask(task, override);
  } catch (e) {
    if (e instanceof TaskOverrideError) throw new UsageError(`${option}: ${e.message}`);
    throw e;
  }
}

/** The sweep report's table as written to results.md. */
function printSweepReport(outDir: string): void {
  process.stdout.write(`${readFileSync(path.join(outDir, 'results.md'), 'utf8')}\n`);
}

/**
 * `experiment verify DIR`: the stored runs `which` names (with --full, every scene of the shard and
 * every model, and the record written) rerun on this code from the task as it loads now, with
 * Ctrl-C as the abort; prints whether they repeat, or the first difference (exit 1).
 */
async function verifyCli(
  dir: string,
  loaded: LoadedTask,
  which:
    | { full: true; shard: Shard }
    | { full: false; scenes: number[]; models: readonly string[]; maxActions: number | undefined },
): Promise<void> {
  const config = readExperimentFile(dir);
  const runs = which.full
    ? shardScenes(config.scenes, which.shard).length * config.models.length
    : which.scenes.length * which.models.length;
  const bar = itemBar('verify', runs);
  const abort = new AbortController();
  const onSigint = (): void => abort.abort();
  process.once('SIGINT', onSigint);
  const common = {
    dir,
    taskDef: loaded.task,
    scene: loaded.scene,
    inputs: { taskFile: loaded.file, sceneFile: loaded.sceneFile },
    onInputs: (check: InputCheck) => {
      for (const line of describeInputCheck(check)) process.stdout.write(`${dir}: ${line}\n`);
    },
    signal: abort.signal,
    onProgress: (note: string) => {
      if (note.endsWith('rerunning')) process.stderr.write(`${note}\n`);
      else bar.tick(note);
    },
  };
  try {
    const result = which.full
      ? await verifyFull({ ...common, shard: which.shard })
      : await verifyExperiment({
          ...common,
          scenes: which.scenes,
          models: which.models,
          ...(which.maxActions !== undefined ? { maxActions: which.maxActions } : {}),
        });
    if (result.ok) {
      const where = 'record' in result ? `recorded in ${result.record}` : `at ${currentCommit()}`;
      process.stdout.write(
        `${dir}: ${result.runs} runs repeat bit for bit${which.full ? '; ' : ' '}${where}\n`,
      );
      return;
    }
    process.stdout.write(`${dir}: differs at ${describeDifference(result.difference)}\n`);
    process.exitCode = EXIT_FAILURE;
  } catch (e) {
    if (e instanceof VerifyError) throw new UsageError(e.message);
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function report(outDir: string, task: string, models: string[], json: boolean | undefined): void {
  const records = readRunRecords(outDir);
  const summaries = writeReport(outDir, task, records, models);
  if (json) {
    process.stdout.write(`${JSON.stringify({ task, out: outDir, models: summaries })}\n`);
    return;
  }
  process.stdout.write(`${readFileSync(path.join(outDir, 'results.md'), 'utf8')}\n`);
  process.stdout.write(
    `wrote ${['summary.json', 'results.md', 'success.svg', 'task-time.svg'].map((f) => path.join(outDir, f)).join(', ')}\n`,
  );
}

/** One progress line per finished (or kept) run. */
function runLine(record: RunRecord | null): string {
  return record
    ? `${record.summary.outcome} in ${record.summary.actions} actions`
    : 'kept from an earlier run';
}

/**
 * Runs a resumable batch with Ctrl-C as its abort signal: undefined when interrupted (finished
 * runs are kept, and the message says how to resume); an output folder of another experiment is a
 * usage error.
 */
async function untilInterrupted<T>(
  run: (signal: AbortSignal) => Promise<T>,
): Promise<{ result: T } | undefined> {
  const abort = new AbortController();
  const onSigint = (): void => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await run(abort.signal);
    if (!abort.signal.aborted) return { result };
    process.stderr.write('interrupted: finished runs are kept; run the same command again to resume\n');
    return undefined;
  } catch (e) {
    if (e instanceof Error && e.message.includes('holds another experiment')) throw new UsageError(e.message);
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export function registerExperimentCommand(program: Command): void {
  const cmd = program
    .command('experiment')
    .description(
      'run a planning experiment: MPC over sampled scenes for each prediction model (resumable, shardable)',
    )
    .option('--task <name|file>', `${shippedTaskNames().join(' | ')}, or a task file`, 'isrr-obstacle')
    .option(
      '--models <list>',
      "comma-separated MODEL[@learned][/PLANNER]: @learned uses the learned coarse model, /mpc|tampc|uampc replaces the task's planner (parareal:2@learned, fine/uampc)",
      'coarse,parareal:1,parareal:2,parareal:3,fine',
    )
    .option('--scenes <N>', 'number of sampled scenes', '20')
    .option('--seed <S>', 'seed of the scene sampling, planners and execution noise', '1')
    .option(
      '--out <dir>',
      'output folder (per-run files, summary.json, results.md, SVG plots)',
      'experiments/out',
    )
    .option('--shard <i/n>', 'run only scenes i, i+n, i+2n, ... (merge shard folders afterwards)', '0/1')
    .option('--workers <W>', 'fine-model worker processes (default: one per core)')
    .option('--async', 'asynchronous MPC: plan the next step while the arm executes this one')
    .option(
      '--noise-slope <B>',
      "replace the task's action-proportional noise slope b (WAFR tasks) in the execution world and the planner's noise model",
    )
    .option(
      '--noise-reading <reading>',
      "read the task's action-proportional noise b|u| another way (WAFR tasks): std | variance-per-step | variance-per-second (docs/noise.md)",
    )
    .option(
      '--sessions',
      "record each run's session log in <out>/sessions (play it back in the console's Sessions view, `parapush log` or Foxglove)",
    )
    .option('--json', 'print the summary as one JSON object instead of the Markdown table')
    .action(async (opts: ExperimentCliOptions) => {
      const { task, batch } = experimentInputs(opts);
      const { models } = batch;
      const b = opts.noiseSlope === undefined ? undefined : noiseSlope('--noise-slope', opts.noiseSlope);
      if (b !== undefined) checkOverride(task, { noiseSlope: b }, '--noise-slope');
      const bar = itemBar('runs', shardScenes(batch.scenes, batch.shard).length * models.length);
      const done = await untilInterrupted((signal) =>
        runExperiment({
          ...batch,
          ...(b !== undefined ? { noiseSlope: b } : {}),
          ...(opts.sessions ? { sessionsDir: path.join(opts.out, 'sessions') } : {}),
          signal,
          onRun: ({ model, scene: s, record }) => bar.tick(`${model} scene ${s}: ${runLine(record)}`),
        }),
      );
      if (!done) return;
      report(
        opts.out,
        reportTitle(task.name, {
          ...(opts.async ? { loopMode: 'asynchronous' as const } : {}),
          ...(b !== undefined ? { noiseSlope: b } : {}),
          ...(batch.noiseReading ? { noiseReading: batch.noiseReading } : {}),
        }),
        models,
        opts.json,
      );
    });

  addMergeCommand(cmd);
  addSweepCommand(cmd);
  addVerifyCommand(cmd);
  addSlurmCommands(cmd);
}

/** `experiment merge`: shard folders joined into one, and its report. */
function addMergeCommand(cmd: Command): void {
  cmd
    .command('merge')
    .description('join shard folders of one experiment into --into and write its report')
    .argument('[shards...]', 'shard output folders (none: just rebuild the report of --into)')
    .requiredOption(
      '--into <dir>',
      "merged output folder (the experiment command's --out is taken by the parent command)",
    )
    .option('--json', 'print the summary as one JSON object')
    .action((shards: string[], opts: { into: string }, command: Command) => {
      // --json is the parent command's option too, and commander gives it to the parent wherever
      // it stands on the command line: read it from both.
      const { json } = command.optsWithGlobals<{ json?: boolean }>();
      let config;
      try {
        config = mergeShards(opts.into, shards);
      } catch (e) {
        if (e instanceof MergeError) throw new UsageError(e.message);
        throw e;
      }
      report(opts.into, reportTitle(config.task, config), config.models, json);
    });
}

/** `experiment sweep`: one experiment per noise level b (WAFR 2018 Fig. 5) and its report. */
function addSweepCommand(cmd: Command): void {
  cmd
    .command('sweep')
    .description(
      "run the experiment once per noise level b (WAFR 2018 Fig. 5) into <out>/b-<b>, then write <out>/sweep.json, results.md and success and task-time plots against b; takes the experiment command's options (--task, --models, --scenes, --seed, --out, --shard, --workers, --async, --noise-reading, --sessions)",
    )
    .option(
      '--noise-slopes <list>',
      "comma-separated noise slopes b replacing the task's (WAFR 2018: none, low, medium, high)",
      '0,0.05,0.075,0.1',
    )
    .option('--report', "only rebuild the sweep's report from its level folders (after merging shards)")
    .action(async (sub: { noiseSlopes: string; report?: boolean }, command: Command) => {
      // The experiment command's options belong to the parent, wherever they stand on the line.
      const opts = command.optsWithGlobals<ExperimentCliOptions & { noiseSlopes: string }>();
      if (opts.noiseSlope !== undefined)
        throw new UsageError('--noise-slope: a sweep sets the level of each run; give --noise-slopes');
      if (sub.report) {
        try {
          writeSweepReport(opts.out, undefined, loadTask(opts.task).task.planner.timeLimit);
        } catch (e) {
          throw new UsageError(`--report: ${(e as Error).message}`);
        }
        printSweepReport(opts.out);
        return;
      }
      const { task, batch } = experimentInputs(opts);
      const levels = sub.noiseSlopes.split(',').map((v) => noiseSlope('--noise-slopes', v.trim()));
      if (new Set(levels).size !== levels.length)
        throw new UsageError('--noise-slopes: name each level once');
      checkOverride(task, { noiseSlope: levels[0] }, '--noise-slopes');
      const bar = itemBar(
        'sweep',
        levels.length * shardScenes(batch.scenes, batch.shard).length * batch.models.length,
      );
      const done = await untilInterrupted((signal) =>
        runSweep({
          ...batch,
          noiseSlopes: levels,
          ...(opts.sessions ? { sessions: true } : {}),
          signal,
          onRun: ({ noiseSlope: b, model, scene: s, record }) =>
            bar.tick(`b = ${b} ${model} scene ${s}: ${runLine(record)}`),
        }),
      );
      if (!done?.result) return;
      const sweep = done.result;
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(sweep)}\n`);
        return;
      }
      printSweepReport(opts.out);
      process.stdout.write(
        `wrote ${['sweep.json', 'results.md', 'success.svg', 'task-time.svg'].map((f) => path.join(opts.out, f)).join(', ')}\n`,
      );
    });
}

/** `experiment verify`: stored runs rerun on this code, compared bit for bit. */
function addVerifyCommand(cmd: Command): void {
  cmd
    .command('verify')
    .description(
      'rerun stored runs of an experiment folder on this code and check that every state, control and outcome repeats bit for bit (exit 1 at the first difference)',
    )
    .argument('<dir>', 'experiment folder (experiment.json and runs/)')
    .option(
      '--scene <list>',
      'comma-separated scene indices to rerun for every model (the parent command takes --scenes; default: 0)',
    )
    .option(
      '--full',
      "rerun every scene of every model, whole runs, and record the check in <dir>/verification/ (npm run results reads it); the experiment command's --shard i/n splits it into shards to run side by side",
    )
    .option('--only <list>', "comma-separated model specs to rerun (default: all of the experiment's)")
    .option('--max-actions <N>', 'compare only the first N actions of each run (default: whole runs)')
    .option(
      '--task-file <file>',
      'the task file, when the experiment ran one that is not shipped (the parent command takes --task)',
    )
    .action(
      async (
        dir: string,
        opts: {
          scene?: string;
          only?: string;
          maxActions?: string;
          taskFile?: string;
          full?: boolean;
        },
        command: Command,
      ) => {
        requireFile(path.join(dir, 'experiment.json'), 'verify');
        const config = readExperimentFile(dir);
        const loaded = loadTask(opts.taskFile ?? config.task);
        if (opts.full) {
          if (opts.scene !== undefined || opts.only !== undefined || opts.maxActions !== undefined)
            throw new UsageError(
              '--full reruns every scene of every model: drop --scene, --only and --max-actions',
            );
          // --shard is the experiment command's option, wherever it stands on the line (as for sweep).
          const { shard } = command.optsWithGlobals<{ shard: string }>();
          await verifyCli(dir, loaded, { full: true, shard: parseShard(shard) });
          return;
        }
        const scenes = (opts.scene ?? '0').split(',').map((v) => wholeNumber('--scene', v.trim(), 0));
        const only = opts.only
          ?.split(',')
          .map((m) => m.trim())
          .filter(Boolean);
        const maxActions =
          opts.maxActions === undefined ? undefined : wholeNumber('--max-actions', opts.maxActions, 1);
        await verifyCli(dir, loaded, { full: false, scenes, models: only ?? config.models, maxActions });
      },
    );
}

/** `experiment slurm` and `experiment status`: the experiment as a Slurm job array. */
function addSlurmCommands(cmd: Command): void {
  registerExperimentSlurmCommands(cmd, (command) => {
    // The experiment command's options belong to the parent, wherever they stand on the line.
    const opts = command.optsWithGlobals<ExperimentCliOptions>();
    const { task, batch } = experimentInputs(opts);
    const b = opts.noiseSlope === undefined ? undefined : noiseSlope('--noise-slope', opts.noiseSlope);
    if (b !== undefined) checkOverride(task, { noiseSlope: b }, '--noise-slope');
    const { models, scenes, seed, loopMode, noiseReading: reading } = batch;
    return {
      config: configOf({
        task: task.name,
        models,
        scenes,
        seed,
        ...(loopMode ? { loopMode } : {}),
        ...(b !== undefined ? { noiseSlope: b } : {}),
        ...(reading ? { noiseReading: reading } : {}),
      }),
      task: opts.task,
      out: opts.out,
      sessions: opts.sessions ?? false,
      shard: opts.shard,
      workers: opts.workers,
    };
  });
}
