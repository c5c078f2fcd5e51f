/**
 * Full-verification records: `parapush experiment verify DIR --full [--shard i/n]` reruns every
 * scene of every model (or shard i's scenes) and, when all repeat bit for bit, writes what it
 * checked as data, DIR/verification/shard-<i>-of-<n>.json: the commit, the models and the scenes.
 * Shards write files of their own, so they run as separate processes side by side. An experiment
 * is fully verified at a commit when the records of that commit cover every scene of every model;
 * the results page marks one whose latest full verification is older than the last change to
 * what moves results (physics, planning, Parareal, the learned and fine models, and the
 * experiment's own task and scene files).
 * An experiment run at a clean commit after that change is current by its own runs (every scene
 * of every model ran on that code), marked apart from one whose runs were repeated.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { appRoot } from '../common/paths';
import type { Shard } from '../common/shard';
import { readStoredJson } from '../common/stored-json';
import type { LoadedTask } from '../planning/task-file';
import { commitPattern, currentCommit, currentInputs } from './provenance';
import { configOf, readExperimentFile, shardScenes } from './runner';
import { verifyExperiment, type VerifyOptions, type VerifyResult } from './verify';

export const verificationRecordSchema = z
  .object({
    /** The commit whose code reran the runs ("-dirty": uncommitted changes; never counts). */
    commit: z.string().regex(commitPattern),
    models: z.array(z.string()).min(1),
    /** Scene indices rerun for every model, whole runs, each repeating bit for bit. */
    scenes: z.array(z.number().int().min(0)),
  })
  .strict();
export type VerificationRecord = z.infer<typeof verificationRecordSchema>;

/**
 * The paths whose changes can move every experiment's results: the code that simulates, predicts
 * and plans, and the learned model. Besides these, an experiment's results rest on its own task
 * and scene files only (`experimentInputs`): a change to another task cannot move them.
 */
export const RESULT_MOVING_CODE = [
  'src-shared/physics',
  'src-main/planning',
  'src-main/parareal',
  'src-main/learned',
  'src-workers',
  'resources/models',
];

/** An experiment's task file and the scene file it names, relative to the checkout `root`. */
export function experimentInputs(
  loaded: LoadedTask,
  models: readonly string[],
  root: string = appRoot,
): string[] {
  return currentInputs({ taskFile: loaded.file, sceneFile: loaded.sceneFile, models, root })
    .filter((input) => input.role !== 'model')
    .map((input) => input.file);
}

const recordDir = (dir: string): string => path.join(dir, 'verification');

/** Writes shard `shard`'s record of a full verification (atomically). */
export function writeVerificationRecord(dir: string, shard: Shard, record: VerificationRecord): string {
  const file = path.join(recordDir(dir), `shard-${shard.index}-of-${shard.count}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(verificationRecordSchema.parse(record), null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

export function readVerificationRecords(dir: string): VerificationRecord[] {
  const d = recordDir(dir);
  if (!existsSync(d)) return [];
  return readdirSync(d)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => readStoredJson(path.join(d, f), verificationRecordSchema, { what: 'verification record' }));
}

/**
 * The commits at which the records cover every one of `scenes` scenes for every one of `models`
 * (uncommitted code never counts).
 */
export function fullyVerifiedCommits(
  records: readonly VerificationRecord[],
  models: readonly string[],
  scenes: number,
): string[] {
  const commits = [...new Set(records.map((r) => r.commit))].filter((c) => !c.endsWith('-dirty'));
  return commits.filter((commit) =>
    models.every((m) => {
      const seen = new Set(
        records.filter((r) => r.commit === commit && r.models.includes(m)).flatMap((r) => r.scenes),
      );
      return Array.from({ length: scenes }, (_, s) => s).every((s) => seen.has(s));
    }),
  );
}

/** What the code's history says about results-moving changes (git in the checkout). */
export interface CodeHistory {
  /** The last commit that changed the results-moving code or any of `inputs` (paths). */
  lastChange(inputs: readonly string[]): string | null;
  /** Whether `ancestor` is `commit` or comes before it. */
  isAncestor(ancestor: string, commit: string): boolean;
}

export function gitHistory(root: string = appRoot): CodeHistory {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  const lastChange = (inputs: readonly string[]): string | null => {
    try {
      return git('log', '-1', '--format=%H', '--', ...RESULT_MOVING_CODE, ...inputs) || null;
    } catch {
      // Not a git checkout: no change is known, so any full verification counts as current.
      return null;
    }
  };
  const isAncestor = (ancestor: string, commit: string): boolean => {
    try {
      git('merge-base', '--is-ancestor', ancestor, commit);
      return true;
    } catch {
      return false;
    }
  };
  // Experiments of one task ask the same questions: each is put to git once.
  const changes = new Map<string, string | null>();
  const ancestry = new Map<string, boolean>();
  return {
    lastChange: (inputs) => cached(changes, inputs.join('\0'), () => lastChange(inputs)),
    isAncestor: (ancestor, commit) =>
      cached(ancestry, `${ancestor}..${commit}`, () => isAncestor(ancestor, commit)),
  };
}

/** `answers`' value for `key`, computed by `answer` the first time it is asked. */
function cached<T>(answers: Map<string, T>, key: string, answer: () => T): T {
  if (!answers.has(key)) answers.set(key, answer());
  return answers.get(key)!;
}

export type VerificationState =
  | { state: 'current'; commit: string }
  | { state: 'ran-current'; commit: string }
  | { state: 'older'; commit: string }
  | { state: 'none' };

/** What the state is judged on: the experiment as experiment.json records it. */
export interface ExperimentIdentity {
  /** The commit whose code ran every run ("-dirty": uncommitted changes). */
  commit: string;
  models: readonly string[];
  scenes: number;
}

/** What the state is judged against: the code's history and the experiment's own input files. */
export interface ExperimentHistory {
  history: CodeHistory;
  /** The experiment's task and scene files (experimentInputs). */
  inputs: readonly string[];
}

/**
 * Whether an experiment's results are at the current code for what moves results: a full
 * verification at or after the last results-moving change, or else the experiment's own runs
 * made at a clean commit after it (every scene of every model ran on that code, none repeated).
 */
export function verificationState(
  records: readonly VerificationRecord[],
  experiment: ExperimentIdentity,
  { history, inputs }: ExperimentHistory,
): VerificationState {
  const last = history.lastChange(inputs);
  const atCurrentCode = (c: string): boolean => last === null || history.isAncestor(last, c);
  const full = fullyVerifiedCommits(records, experiment.models, experiment.scenes);
  const current = full.find(atCurrentCode);
  if (current) return { state: 'current', commit: current };
  const ran = experiment.commit;
  if (!ran.endsWith('-dirty') && atCurrentCode(ran)) return { state: 'ran-current', commit: ran };
  return full.length > 0 ? { state: 'older', commit: full[0]! } : { state: 'none' };
}

/** The results page's words for it. */
export function verificationText(v: VerificationState): string {
  if (v.state === 'current')
    return `Fully verified (every scene, every model) at \`${v.commit.slice(0, 12)}\`.`;
  if (v.state === 'ran-current')
    return `Run at the current code: every scene of every model ran at \`${v.commit.slice(0, 12)}\`, after the last change to physics, planning, Parareal, models or its task and scene; \`npx parapush experiment verify DIR --full\` repeats them.`;
  if (v.state === 'older')
    return `**Full verification out of date:** last at \`${v.commit.slice(0, 12)}\`, older than the last change to physics, planning, Parareal, models or its task and scene; rerun \`npx parapush experiment verify DIR --full\`.`;
  return '**Not fully verified** at any commit: `npx parapush experiment verify DIR --full` reruns every scene of every model.';
}

/**
 * A full verification of shard `shard` of an experiment: every scene of the shard, every model,
 * whole runs. When all repeat, the record of what was checked is written (at `commit`, the
 * checkout's by default) and its file returned with the result; a difference writes nothing.
 */
export async function verifyFull(
  o: Omit<VerifyOptions, 'scenes' | 'models' | 'maxActions' | 'adjustTask'> & {
    shard: Shard;
    commit?: string;
  },
): Promise<VerifyResult & { record: string | null }> {
  const file = readExperimentFile(o.dir);
  const { models, scenes: count } = configOf(file);
  const scenes = shardScenes(count, o.shard);
  const { shard, commit, ...rest } = o;
  const result = await verifyExperiment({ ...rest, scenes, models });
  if (!result.ok) return { ...result, record: null };
  const record = writeVerificationRecord(o.dir, shard, { commit: commit ?? currentCommit(), models, scenes });
  return { ...result, record };
}
